// A certificate for https servers a test runs on 127.0.0.1; the processes that call them are told
// to trust it with NODE_EXTRA_CA_CERTS (the path).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function selfSignedCertificate(folder: string) {
  const key = join(folder, 'key.pem');
  const path = join(folder, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      path,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(path, 'utf8'), path };
}
