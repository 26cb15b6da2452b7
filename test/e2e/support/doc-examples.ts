/**
 * The shell examples of a Markdown document, as a reader would type them: every command of its
 * ```sh / ```bash / ```shell / ```console blocks (backslash continuations and quotes that span
 * lines joined, `$ ` prompts, comment lines and console output left out) and every schedule line
 * of its ```crontab blocks. Pure: text in, examples out, so that it is tested without a shell.
 */

export interface DocExample {
  file: string
  /** 1-based line where the command starts. */
  line: number
  /** 1-based line of the fence that opens its code block: the examples of one block go together. */
  block: number
  kind: 'shell' | 'cron'
  /** The command as written, without a trailing comment. */
  command: string
  /** The trailing comment, when there is one (what the docs promise of the command). */
  comment?: string
  /** cron: the NAME=value lines of the crontab above this line, in order. */
  env?: Record<string, string>
}

export interface DocExamples {
  examples: DocExample[]
  /** What makes the document unreadable for this purpose, with the file and line. */
  problems: string[]
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console'])
const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/
/** A line an untagged block should not hold: it reads like a command, so its block must say so. */
const COMMAND_LIKE = /^(\$ |pms |npm |npx |export |curl |sqlite3 |psql |ssh |[A-Z][A-Z0-9_]*=\S* pms )|^@\w+\s/
/** A crontab schedule line: five time fields, one of them at least a `*`, then a command. */
function scheduleLike(text: string): boolean {
  const fields = /^(([\d*/,-]+\s+){5})\S/.exec(text)
  return fields !== null && fields[1]!.includes('*')
}

/**
 * Where a shell line ends: whether a quote is still open, and where an unquoted `#` comment starts
 * (a `#` at the start of a word only, as bash reads it). `quote` is the quote open at its start.
 */
export function scanShellLine(line: string, quote: '' | "'" | '"' = ''): {quote: '' | "'" | '"'; comment: number} {
  let open = quote
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (open === "'") {
      if (c === "'") open = ''
    } else if (open === '"') {
      if (c === '\\') i++
      else if (c === '"') open = ''
    } else if (c === '\\') i++
    else if (c === "'" || c === '"') open = c
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return {quote: '', comment: i}
  }
  return {quote: open, comment: -1}
}

interface Block {
  lang: string
  /** 1-based line of the first line inside the fence. */
  start: number
  lines: string[]
}

function blocks(file: string, markdown: string, problems: string[]): Block[] {
  const out: Block[] = []
  let open: (Block & {fence: string}) | undefined
  markdown.split(/\r?\n/).forEach((text, index) => {
    const fence = FENCE.exec(text.trimStart())
    if (open === undefined) {
      if (fence) open = {fence: fence[1]!, lang: fence[2]!.toLowerCase(), start: index + 2, lines: []}
    } else if (fence && fence[1]!.startsWith(open.fence) && fence[2] === '' && text.trim() === fence[1]) {
      out.push({lang: open.lang, start: open.start, lines: open.lines})
      open = undefined
    } else open.lines.push(text)
  })
  if (open) problems.push(`${file}:${open.start - 1}: a code block is never closed`)
  return out
}

function shellExamples(file: string, block: Block): DocExample[] {
  const out: DocExample[] = []
  const consoleBlock = block.lang === 'console'
  let pending: {line: number; text: string; quote: '' | "'" | '"'} | undefined
  block.lines.forEach((raw, index) => {
    const line = block.start + index
    if (pending) {
      const continued = pending.quote === '' // a backslash continuation; otherwise a quote spans the line break
      pending.text += continued ? ` ${raw.trim()}` : `\n${raw}`
    } else {
      let text = raw.trim()
      if (consoleBlock) {
        if (!text.startsWith('$ ')) return // output
        text = text.slice(2)
      } else if (text.startsWith('$ ')) text = text.slice(2)
      if (text === '' || text.startsWith('#')) return
      pending = {line, text, quote: ''}
    }
    const lastLine = pending.text.slice(pending.text.lastIndexOf('\n') + 1)
    const scan = scanShellLine(pending.text)
    if (scan.quote !== '') {
      pending.quote = scan.quote
      return
    }
    if (scan.comment === -1 && /(^|[^\\])\\$/.test(lastLine)) {
      pending.text = pending.text.slice(0, -1).trimEnd()
      pending.quote = ''
      return
    }
    const command = (scan.comment === -1 ? pending.text : pending.text.slice(0, scan.comment)).trimEnd()
    const comment = scan.comment === -1 ? undefined : pending.text.slice(scan.comment + 1).trim()
    out.push({file, line: pending.line, block: block.start - 1, kind: 'shell', command, ...(comment ? {comment} : {})})
    pending = undefined
  })
  if (pending) out.push({file, line: pending.line, block: block.start - 1, kind: 'shell', command: pending.text})
  return out
}

function cronExamples(file: string, block: Block, problems: string[]): DocExample[] {
  const out: DocExample[] = []
  const env: Record<string, string> = {}
  block.lines.forEach((raw, index) => {
    const text = raw.trim()
    const line = block.start + index
    if (text === '' || text.startsWith('#')) return
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(text)
    if (assignment) {
      env[assignment[1]!] = assignment[2]!
      return
    }
    const schedule = /^(?:@\w+|(?:\S+\s+){4}\S+)\s+(.+)$/.exec(text)
    if (schedule) out.push({file, line, block: block.start - 1, kind: 'cron', command: schedule[1]!, env: {...env}})
    else problems.push(`${file}:${line}: neither a schedule line nor NAME=value in a crontab block: ${text}`)
  })
  return out
}

/** Every shell and cron example of one Markdown document, in the order they are written. */
export function docExamples(file: string, markdown: string): DocExamples {
  const problems: string[] = []
  const examples: DocExample[] = []
  for (const block of blocks(file, markdown, problems)) {
    if (SHELL.has(block.lang)) examples.push(...shellExamples(file, block))
    else if (block.lang === 'crontab') examples.push(...cronExamples(file, block, problems))
    else if (block.lang === '') {
      const index = block.lines.findIndex((text) => COMMAND_LIKE.test(text.trim()) || scheduleLike(text.trim()))
      if (index !== -1)
        problems.push(`${file}:${block.start + index}: a code block without a language holds a command (${block.lines[index]!.trim()}): mark it sh, console or crontab, or text if it is not run`)
    }
  }
  return {examples, problems}
}
