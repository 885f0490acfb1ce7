// Code mode's sandbox limits when no setting gives them (a server made by tests or by
// `mcp-gen serve` without --code-* flags): the settings table's defaults, read from it so that
// --help, the generated README and the sandbox cannot disagree.

import { setting } from '../../contract/settings.js';
import type { SandboxLimits } from '../code-mode/sandbox.js';

/** Console output a program's answer keeps, in bytes (not a setting: the rest is cut with a note). */
export const CODE_LOG_BYTES = 16_384;

/** The number a --code-* setting defaults to, as the settings table writes it. */
function defaultOf(flag: string): number {
  return Number(setting(flag).default);
}

export const DEFAULT_CODE_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: defaultOf('code-memory-mb') * 1_048_576,
  timeMs: defaultOf('code-time-ms'),
  maxCalls: defaultOf('code-max-calls'),
  maxResultBytes: defaultOf('code-max-result-bytes'),
  maxLogBytes: CODE_LOG_BYTES,
});
