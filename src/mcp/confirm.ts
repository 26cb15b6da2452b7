/**
 * The person's word before a write. With writes on, each write call asks through MCP elicitation
 * (the client shows the question to the person, not to the model) and goes ahead only on a yes to
 * that very question: the answer comes back on a retry of the same call, and is taken only with the
 * one-use token the question was sent with and for the same tool and arguments. A client that
 * cannot ask is refused, unless the server was started with --no-confirm.
 */
import {randomUUID} from 'node:crypto'
import {acceptedContent, CLIENT_CAPABILITIES_META_KEY, inputRequired, type CallToolResult, type InputRequiredResult, type ServerContext} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {refusalAnswer} from './answer.js'
import type {WriteMode} from './toolsets.js'

/** How long a question may wait for its answer: a person reading an SMS's cost, not a day. */
const QUESTION_TTL_MS = 15 * 60_000

const ANSWER_KEY = 'confirm'
const answerSchema = z.object({confirm: z.boolean().describe('Yes, do it')})

/** The questions asked and not answered yet, each usable once. */
export class Questions {
  private readonly open = new Map<string, {call: string; at: number}>()

  constructor(private readonly now: () => number) {}

  ask(call: string): string {
    const now = this.now()
    for (const [token, question] of this.open) if (now - question.at > QUESTION_TTL_MS) this.open.delete(token)
    const token = randomUUID()
    this.open.set(token, {call, at: now})
    return token
  }

  /** True once for a token given out for this very call; the token is spent either way. */
  take(token: unknown, call: string): boolean {
    if (typeof token !== 'string') return false
    const question = this.open.get(token)
    this.open.delete(token)
    return question !== undefined && question.call === call && this.now() - question.at <= QUESTION_TTL_MS
  }
}

export interface WriteGate {
  mode: WriteMode
  questions: Questions
  /** Capabilities the client declared at initialize (2025-era connections). */
  clientCapabilities(): {elicitation?: unknown} | undefined
}

/** The client's capabilities for this request: its per-request envelope (2026-07-28), else what it declared at initialize. */
function canElicit(gate: WriteGate, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, {elicitation?: unknown} | undefined> | undefined
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? gate.clientCapabilities()
  return Boolean(capabilities?.elicitation)
}

export const NO_ELICITATION_MESSAGE =
  'Refused: this write needs the person\'s yes, and this MCP client cannot ask (it does not support elicitation). ' +
  'Nothing was sent or changed. To let writes through without asking, start the server with `pms mcp --allow-writes --no-confirm` ' +
  '(unsafe: the assistant alone then decides to send messages and change rates).'

/**
 * Asks `question` for the write `call` (its tool and arguments, in one string), then runs `write`
 * only on a yes. `question` also makes the checks that must pass before any write (it throws
 * otherwise). Answers the question to send (input required), a refusal, or the write's answer.
 */
export async function confirmed(
  gate: WriteGate,
  ctx: ServerContext,
  call: string,
  question: () => Promise<string>,
  write: () => Promise<CallToolResult>,
): Promise<CallToolResult | InputRequiredResult> {
  if (gate.mode === 'unconfirmed') {
    // Nobody is asked, but the checks behind the question (a real booking of the scope, a clean file) still hold.
    await question()
    return write()
  }
  if (gate.mode === 'off') return refusalAnswer('writes_off', 'Refused: writes are off. Start the server with `pms mcp --allow-writes` to allow them.')
  if (!canElicit(gate, ctx)) return refusalAnswer('confirmation_unavailable', NO_ELICITATION_MESSAGE)
  const responses = ctx.mcpReq.inputResponses
  if (responses === undefined || !(ANSWER_KEY in responses)) {
    const token = gate.questions.ask(call)
    return inputRequired({
      inputRequests: {[ANSWER_KEY]: inputRequired.elicit({mode: 'form', message: await question(), requestedSchema: answerSchema})},
      requestState: token,
    })
  }
  if (!gate.questions.take(ctx.mcpReq.requestState(), call)) {
    return refusalAnswer('confirmation_mismatch', 'Refused: the answer does not belong to a question this server asked for this call. Nothing was done; call the tool again.')
  }
  if (acceptedContent(responses, ANSWER_KEY, answerSchema)?.confirm !== true) {
    return refusalAnswer('declined', 'The person declined: nothing was sent or changed. Do not retry unless they ask you to.')
  }
  return write()
}
