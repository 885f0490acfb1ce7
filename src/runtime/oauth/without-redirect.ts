// Requests to an authorization server follow no redirect: a redirect is refused, not followed.
// `redirect: 'error'` says so in fetch, but workerd implements only 'follow' and 'manual', so the
// refusal is made here from 'manual', the same on every platform.

/** fetch with a redirect answer (3xx) thrown as the error `redirect: 'error'` throws in Node (undici's). */
export async function fetchWithoutRedirect(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel();
    throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
  }
  return response;
}
