import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // e2e tests start sandboxes and child processes; two cores do not gain from more workers
    maxWorkers: 2,
  },
})
