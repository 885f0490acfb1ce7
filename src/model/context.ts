// What the steps that read one operation share: the document, the schema converter that
// collects shared schemas for the whole table, and where warnings go.

import type { JsonObject } from '../parse/pointer.js';
import type { GenerationWarning } from '../warnings.js';
import type { SchemaConverter } from './schema.js';

export interface SpecContext {
  doc: JsonObject;
  converter: SchemaConverter;
  /** Warnings of the whole run: a step may look back to say a shared thing once. */
  warnings: GenerationWarning[];
}

/** Where an operation is, for its steps and their warnings. */
export interface OperationPlace {
  path: string;
  method: string;
  /** `METHOD /path`, for the report. */
  label: string;
  /** JSON pointer of the operation, for warnings. */
  where: string;
  /** The Encoding Object's style/explode apply to multipart (OAS 3.1; Swagger 2.0 collectionFormat), not only to forms (3.0). */
  styledMultipart: boolean;
}
