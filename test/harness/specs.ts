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

/** JOBS_SPEC with an API key in X-Api-Key: each client may bring its own (--auth-from-headers X-Api-Key=key), and so be its own caller. */
export const KEYED_JOBS_SPEC = {
  ...JOBS_SPEC,
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
};
