/** The SDK's own MCP client over stdio, spawning the built `pms mcp` as a real client would. */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {PMS_BIN, tempConfigDir} from './pms.js'

export interface McpSession {
  client: Client
  /** Every question the server asked the person, in order. */
  questions: string[]
  /** Everything `pms mcp` wrote on stderr. */
  stderr(): string
  close(): Promise<void>
}

export interface McpSessionOptions {
  env: Record<string, string>
  configDir?: string
  /** How the person answers a question; without it the client cannot be asked (no elicitation capability). */
  answer?: 'accept' | 'decline'
  /** The protocol revision: the 2025 handshake (as most clients today), or the 2026-07-28 one where the client supports it. */
  era?: 'legacy' | 'auto'
  /** Runs when a question comes, before it is answered (the n-th question, from 0). */
  onQuestion?: (n: number) => Promise<void>
}

export async function startMcp(args: string[], options: McpSessionOptions): Promise<McpSession> {
  const questions: string[] = []
  const client = new Client(
    {name: 'pms-e2e', version: '1.0.0'},
    {capabilities: options.answer ? {elicitation: {form: {}}} : {}, versionNegotiation: {mode: options.era ?? 'legacy'}},
  )
  if (options.answer) {
    const answer = options.answer
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push(request.params.message)
      await options.onQuestion?.(questions.length - 1)
      return answer === 'accept' ? {action: 'accept', content: {confirm: true}} : {action: 'decline'}
    })
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PMS_BIN, 'mcp', ...args],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PMS_CONFIG_DIR: options.configDir ?? tempConfigDir(),
      NO_COLOR: '1',
      OCLIF_SKIP_NEW_VERSION_CHECK: 'true',
      ...options.env,
    },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  await client.connect(transport)
  return {client, questions, stderr: () => stderr, close: () => client.close()}
}

/** The text of a tool answer's first content block. */
export function textOf(result: {content?: unknown}): string {
  const first = (result.content as {type: string; text?: string}[] | undefined)?.[0]
  return first?.type === 'text' ? (first.text ?? '') : ''
}
