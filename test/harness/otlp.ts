// Spans as an OTLP/HTTP JSON export carries them (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding),
// as far as the tests read them: what a receiver of the tests decodes.

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  status?: { code?: number };
}

/** SpanKind: a tools/call (SERVER) and an upstream attempt (CLIENT). */
export const SERVER_KIND = 2;
export const CLIENT_KIND = 3;

/** An attribute's value: a string, or an integer (a decimal string in JSON) as a number. */
export const spanAttribute = (span: OtlpSpan, key: string): string | number | undefined => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
};
