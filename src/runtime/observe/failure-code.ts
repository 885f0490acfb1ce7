// How traces and log lines name a failed request: by its code, never its message.

/** ECONNREFUSED, TimeoutError, AbortError…: what made a request fail, without the message (it names the URL). */
export function failureCode(error: unknown): string {
  const failure = error as { code?: unknown; name?: string; cause?: { code?: unknown } } | undefined;
  const code = failure?.cause?.code ?? failure?.code;
  return typeof code === 'string' ? code : (failure?.name ?? 'Error');
}
