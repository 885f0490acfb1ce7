// Prompts declared by the spec (`x-mcp-prompts` at its root) or the config file (`prompts`):
// name, description, arguments and a template whose `{{argument}}` placeholders the server
// fills. Spec text stays data: the template is never evaluated, only searched and replaced.

import { isObject, type Json } from '../parse/pointer.js';
import type { PromptSpec } from '../contract/table.js';
import { warning, type GenerationWarning } from '../warnings.js';

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The valid prompts of a list; each invalid entry is a warning naming its place, and is left out. */
export function readPrompts(value: Json | undefined, where: string, warnings: GenerationWarning[]): PromptSpec[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    warnings.push(warning('bad-prompt', 'must be a list of { name, description, arguments, template }', where));
    return [];
  }
  const out: PromptSpec[] = [];
  value.forEach((entry, i) => {
    const at = `${where}/${i}`;
    if (!isObject(entry) || typeof entry.name !== 'string' || !NAME.test(entry.name) || typeof entry.template !== 'string') {
      warnings.push(warning('bad-prompt', 'needs a name (letters, digits, "_", "-", ".") and a template (text); left out', at));
      return;
    }
    const prompt: PromptSpec = { name: entry.name, template: entry.template.slice(0, 20_000) };
    if (typeof entry.title === 'string') prompt.title = entry.title.slice(0, 200);
    if (typeof entry.description === 'string') prompt.description = entry.description.slice(0, 1_000);
    if (Array.isArray(entry.arguments)) {
      const args: NonNullable<PromptSpec['arguments']> = [];
      for (const a of entry.arguments) {
        if (!isObject(a) || typeof a.name !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(a.name)) {
          warnings.push(warning('bad-prompt', 'an argument needs a name of letters, digits and "_"; left out', at));
          continue;
        }
        if (a.name === '__proto__') {
          warnings.push(
            warning('bad-prompt', 'an argument cannot be named __proto__ (MCP SDKs drop that key from requests); left out', at),
          );
          continue;
        }
        args.push({
          name: a.name,
          ...(typeof a.description === 'string' ? { description: a.description.slice(0, 500) } : {}),
          ...(a.required === true ? { required: true } : {}),
          ...(Array.isArray(a.enum) ? { enum: a.enum.filter((v): v is string => typeof v === 'string').slice(0, 100) } : {}),
        });
      }
      if (args.length) prompt.arguments = args;
    }
    if (out.some((p) => p.name === prompt.name)) {
      warnings.push(warning('bad-prompt', `a second prompt named ${prompt.name}; left out`, at));
      return;
    }
    out.push(prompt);
  });
  return out;
}
