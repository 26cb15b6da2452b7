/**
 * The flags of the commands that write Restrictions through batches (`rates import`,
 * `restrictions set`), defined once so that both read and behave alike.
 */
import {Flags} from './flags.js'
import type {PreviewMode} from '../rates/index.js'

/** What a rerun does, in the words of every help text that mentions it. */
export const RERUN_TEXT =
  'Every run applies what it is given: every batch is submitted, even where the preview shows nothing changing (a read shows applied values, ' +
  'not a batch of this or another machine still waiting to overwrite them; the service itself sends nothing for a value already current), ' +
  'even where an identical batch of an earlier run is still queued or processing; each attempt has an Idempotency-Key of its own. ' +
  'The key is noted in the config directory before the first call, so that a rerun after a crash or lost answers recovers that attempt ' +
  'instead of writing twice (a recovered batch that has already ended is submitted anew).'

export const applyFlags = {
  'dry-run': Flags.boolean({description: 'Show the diff of every batch and write nothing (the preview comes from reads unless --preview dry-run)'}),
  yes: Flags.boolean({description: 'Submit without asking (needed off a terminal)'}),
  wait: Flags.boolean({description: 'Follow every batch to its final status and print the outcome report (Ctrl-C stops following, not the batches)'}),
  resubmit: Flags.boolean({
    description:
      'Recover nothing from earlier runs: submit a new batch even where an earlier attempt at it lost its answer (its batch, if stored, would otherwise stand for this run while it waits)',
    exclusive: ['dry-run'],
  }),
  'full-diff': Flags.boolean({description: 'On a terminal, show every change of the diff (it is cut to a screenful otherwise; off a terminal it is always whole)'}),
  timeout: Flags.integer({description: 'With --wait: stop following after this many seconds (exit 75); the batches keep running', min: 1, dependsOn: ['wait']}),
}

export const previewFlag = {
  preview: Flags.option({
    options: ['reads', 'dry-run'] as const,
    default: 'reads' as const,
    description:
      'Where the preview before submitting comes from: reads of the current values (GET /restrictions, on the read limit), or the service\'s dry runs (each a write call, like a submission). ' +
      'Either way the preview is shown, never a reason to leave a batch out; docs/csv-format.md compares the two',
  })(),
  'no-preview': Flags.boolean({description: 'Send every batch without a preview (no diff)', exclusive: ['preview', 'dry-run']}),
}

/** Parsed apply flags as the run takes them. */
export interface ApplyFlags {
  dryRun: boolean
  preview: PreviewMode
  wait: boolean
  yes: boolean
  /** --timeout in seconds. */
  timeout?: number
  resubmit?: boolean
  fullDiff?: boolean
}

/** oclif leaves a boolean flag that was not given undefined: each comes out true or false, as --json prints it. */
export function applyFlagValues(flags: {
  'dry-run'?: boolean
  yes?: boolean
  wait?: boolean
  resubmit?: boolean
  timeout?: number
  preview?: 'reads' | 'dry-run'
  'no-preview'?: boolean
  'full-diff'?: boolean
}): ApplyFlags {
  return {
    dryRun: flags['dry-run'] === true,
    preview: flags['no-preview'] ? 'none' : (flags.preview ?? 'reads'),
    wait: flags.wait === true,
    yes: flags.yes === true,
    timeout: flags.timeout,
    resubmit: flags.resubmit === true,
    fullDiff: flags['full-diff'] === true,
  }
}
