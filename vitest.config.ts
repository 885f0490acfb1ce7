import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests install and build generated projects: minutes, not milliseconds
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
