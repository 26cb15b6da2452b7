/**
 * The flags of the commands that write Restrictions through batches (`rates import`,
 * `restrictions set`), defined once so that both read and behave alike.
 */
import {Flags} from '@oclif/core'

/** What a rerun does, in the words of every help text that mentions it. */
export const RERUN_TEXT =
  'Every run applies what it is given: a batch whose dry run changes nothing is not sent ("nothing to change"), ' +
  'an identical batch an earlier run left queued or processing is followed instead of sent twice, and the rest is submitted as new batches, ' +
  'each attempt under an Idempotency-Key of its own. The key is noted in the config directory before the first call, so that a rerun ' +
  'after a crash or lost answers recovers that attempt instead of writing twice.'

export const applyFlags = {
  'dry-run': Flags.boolean({description: 'Send every batch as a dry run and show the diff; nothing is stored'}),
  yes: Flags.boolean({description: 'Submit without asking (needed off a terminal)'}),
  wait: Flags.boolean({description: 'Follow every batch to its final status and print the outcome report (Ctrl-C stops following, not the batches)'}),
  resubmit: Flags.boolean({
    description:
      'Follow or recover nothing from earlier runs: submit a new batch even where an identical one is still queued or processing (say one going to fail or be cancelled) or its answer was lost',
    exclusive: ['dry-run'],
  }),
  'full-diff': Flags.boolean({description: 'On a terminal, show every change of the diff (it is cut to a screenful otherwise; off a terminal it is always whole)'}),
  timeout: Flags.integer({description: 'With --wait: stop following after this many seconds (exit 75); the batches keep running', min: 1, dependsOn: ['wait']}),
}

export const previewFlag = {
  preview: Flags.boolean({
    description:
      'Dry-run the batches before submitting to show the changes and leave out batches with nothing to change (each dry run is a write call); --no-preview sends every batch',
    allowNo: true,
    default: true,
  }),
}

/** Parsed apply flags as the run takes them. */
export interface ApplyFlags {
  dryRun: boolean
  preview: boolean
  wait: boolean
  yes: boolean
  /** --timeout in seconds. */
  timeout?: number
  resubmit?: boolean
  fullDiff?: boolean
}

export function applyFlagValues(flags: {
  'dry-run': boolean
  yes: boolean
  wait: boolean
  resubmit: boolean
  timeout?: number
  preview?: boolean
  'full-diff'?: boolean
}): ApplyFlags {
  return {
    dryRun: flags['dry-run'],
    preview: flags.preview ?? true,
    wait: flags.wait,
    yes: flags.yes,
    timeout: flags.timeout,
    resubmit: flags.resubmit,
    fullDiff: flags['full-diff'],
  }
}
