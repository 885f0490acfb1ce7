// TypeScript text checked by the compiler's API alone (no emit, no real lib: a stub of the few
// global types printed declarations use), for generated text that must be valid TypeScript.
import { ts } from 'ts-morph';

/** What printed declarations use of the global types: arrays, promises, and NonNullable for checks. */
const STUB_LIB = [
  'interface Array<T> { length: number; [n: number]: T } interface Boolean {} interface CallableFunction {} interface Function {}',
  'interface IArguments {} interface NewableFunction {} interface Number {} interface Object {} interface RegExp {} interface String {}',
  'interface Promise<T> { then<R>(done: (value: T) => R): Promise<R> } type NonNullable<T> = T & {};',
].join('\n');

/** The first syntax or type error of `text` as one line (strict mode), or undefined when it type-checks. */
export function typeCheckProblem(text: string, name = 'checked.ts'): string | undefined {
  const files = new Map([
    [`/${name}`, text],
    ['/lib.d.ts', STUB_LIB],
  ]);
  const host = ts.createCompilerHost({});
  host.getSourceFile = (file, target) => (files.has(file) ? ts.createSourceFile(file, files.get(file) as string, target) : undefined);
  host.fileExists = (file) => files.has(file);
  host.readFile = (file) => files.get(file);
  host.getCurrentDirectory = () => '/';
  const program = ts.createProgram([...files.keys()], { noEmit: true, strict: true, noLib: true, types: [] }, host);
  const [first] = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics(), ...program.getGlobalDiagnostics()];
  if (first === undefined) return undefined;
  const at = first.file && first.start !== undefined ? ` (line ${first.file.getLineAndCharacterOfPosition(first.start).line + 1})` : '';
  return `does not type-check${at}: ${ts.flattenDiagnosticMessageText(first.messageText, ' ')}`;
}
