// Small specs several tests serve.

/** An API whose one operation answers 202 with an Operation-Location to follow (a long-running operation). */
export const JOBS_SPEC = {
  openapi: '3.0.3',
  info: { title: 'Jobs', version: '1' },
  servers: [{ url: 'https://jobs.example.com' }],
  paths: {
    '/jobs': {
      post: {
        operationId: 'startJob',
        responses: { '202': { description: 'accepted', headers: { 'Operation-Location': { schema: { type: 'string' } } } } },
      },
    },
  },
};
