// A certificate for https servers a test runs on 127.0.0.1; the processes that call them are told
// to trust it with NODE_EXTRA_CA_CERTS (the path).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `ips`: the addresses the certificate names (127.0.0.1, and any other of this machine's a test serves on). */
export function selfSignedCertificate(folder: string, ips: string[] = ['127.0.0.1']) {
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
      `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}`,
    ],
    { stdio: 'pipe' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(path, 'utf8'), path };
}
