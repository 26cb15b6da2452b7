import {BaseSequencer, type TestSpecification} from 'vitest/node'
import {defineConfig} from 'vitest/config'

/**
 * The files that take longest, longest first (seconds per file in one run of the suite, measured). They start first,
 * so that none of them starts last while the other worker has nothing left to do: without
 * vitest's cache of durations (a fresh clone, as in CI) the default order is by file size, and
 * some of the longest files are short. Every other file follows in the default order.
 */
const LONGEST_FIRST = [
  'test/e2e/bookings-sync-crash.test.ts',
  'test/e2e/webhooks-reconcile.test.ts',
  'test/e2e/webhooks-inbox.test.ts',
  'test/e2e/rates-import.test.ts',
  'test/e2e/screen-hosts.test.ts',
  'test/e2e/messages.test.ts',
  'test/e2e/sandbox-oauth.test.ts',
  'test/e2e/package.test.ts',
  'test/e2e/evolve.test.ts',
  'test/e2e/webhooks-postgres.test.ts',
  'test/e2e/rates-malformed.test.ts',
  'test/e2e/mcp.test.ts',
  'test/e2e/messages-resend.test.ts',
  'test/e2e/webhooks.test.ts',
  'test/e2e/rates-latest.test.ts',
  'test/e2e/messages-tty.test.ts',
  'test/e2e/login.test.ts',
  'test/e2e/bookings-sync.test.ts',
  'test/e2e/api.test.ts',
  'test/e2e/auth-refresh.test.ts',
  'test/e2e/bookings-sync-postgres.test.ts',
  'test/e2e/doc-examples.test.ts',
  'test/unit/auth/lock.test.ts',
  'test/e2e/rates-workbook.test.ts',
  'test/e2e/rates-interrupted.test.ts',
  'test/e2e/file-lock.test.ts',
]

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`))
      return at === -1 ? LONGEST_FIRST.length : at
    }
    // Array sort is stable: the files not listed keep the default order among themselves.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // e2e tests start sandboxes and child processes; two cores do not gain from more workers
    maxWorkers: 2,
    sequence: {sequencer: LongestFirst},
    projects: [
      {extends: true, test: {name: 'unit', include: ['test/unit/**/*.test.ts']}},
      // An e2e file works through child processes and HTTP and mocks no module: it can run in a
      // worker another file has used, which saves starting a worker (about 0.4 s of CPU) per file.
      {extends: true, test: {name: 'e2e', include: ['test/e2e/**/*.test.ts'], isolate: false}},
    ],
  },
})
