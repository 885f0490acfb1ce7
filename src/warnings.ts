// Generation warnings as data: a code a program can test, a sentence for people, and the
// place in the spec when there is one. The CLI formats them; nothing parses them back.

export type WarningCode =
  | 'no-base-url' // the spec names no absolute server URL
  | 'undefined-server-variable' // a server URL uses a {variable} it does not define: that server is left out
  | 'no-tools' // nothing to serve
  | 'no-info' // the spec has no info object
  | 'unsupported-security' // a security scheme the server cannot apply
  | 'unsendable-header' // a header or cookie the server must never send (Host, Transfer-Encoding, a name that is no token)
  | 'credential-prefix' // credential variables moved away from a well-known name
  | 'internal-server' // a spec from a URL named an internal address as its upstream or tokenUrl
  | 'missing-path-parameter' // a {name} in the path that no parameter declares
  | 'unresolved-request-body' // a requestBody $ref that cannot be followed
  | 'unused-option' // an option that does nothing for this spec
  | 'unmatched-override' // a config "toolOverrides" (or "tools") key that names no operation
  | 'unused-scope-rule' // a config "scopes" rule that sets no tool's scopes (it matches none, or earlier rules take all it matches)
  | 'large-listing' // tools/list in full beyond what clients read at once
  | 'not-a-resource' // route mapping asked for a resource that a read could not make
  | 'bad-prompt' // an x-mcp-prompts or config prompt that cannot be used
  | 'unmatched-overlay-target' // an overlay action whose JSONPath target selects nothing: it changes nothing
  | 'unknown-style' // a parameter style the runtime cannot send: the location's default is used
  | 'bad-stream-end' // an x-mcp-stream-end that names no event: the default end ([DONE]) is kept
  | 'fixed-method-key' // an additionalOperations key that is a fixed field's method in other capitals: left out
  | 'unsendable-method'; // an additionalOperations key no HTTP client sends as an API call (CONNECT), or given twice: left out

export interface GenerationWarning {
  code: WarningCode;
  message: string;
  /** A JSON pointer into the spec (with its file), when the warning is about one place. */
  where?: string;
}

export const warning = (code: WarningCode, message: string, where?: string): GenerationWarning => ({
  code,
  message,
  ...(where !== undefined ? { where } : {}),
});

export const formatWarning = (w: GenerationWarning): string => (w.where ? `${w.where}: ${w.message}` : w.message);
