// A streamed answer read item by item: server-sent events (WHATWG HTML §9.2.6), JSON Lines and
// JSON Text Sequences (RFC 7464) split into records, each parsed as JSON where it is JSON, and
// collected within bounds: whole items while they fit the answer budget, then only counted, so
// that a stream of any length costs bounded memory. Pure: the bytes come from send-step.ts.

import type { SequenceFormat } from '../../../contract/media.js';
import type { StreamEnd, StreamEndMark } from '../../../contract/table.js';

/** One record of the stream: an item, a record that was not JSON, or the stream's terminal event. */
export type StreamRecord = { item: unknown } | { malformed: string; note: string } | { terminal: true };

/** What a streamed answer becomes: the tool's structuredContent (model/responses.ts's sequenceOutput). */
export interface StreamRead {
  items: unknown[];
  omitted: number;
  malformed: { at: number; text: string; note: string }[];
  ended: StreamEnd;
  note?: string;
}

export interface StreamLimits {
  /** Most items (and malformed records) read before the reading stops. */
  maxItems: number;
  /** Most bytes of JSON the kept items and records may take; past them, records are counted. */
  keepBytes: number;
  /** Longest record kept whole in the reading buffer; a longer one is skipped with a note. */
  maxRecordBytes: number;
  /** The SSE events that end the stream (`[DONE]` data, as chat-completion APIs send, unless the spec names others). */
  ends: StreamEndMark[];
}

/** The text of a malformed record kept in the result: enough to recognise it. */
const EXCERPT_CHARS = 200;
const excerpt = (text: string) => (text.length > EXCERPT_CHARS ? text.slice(0, EXCERPT_CHARS) + '…' : text);

/** A text parsed as JSON, or the record that says it was not. */
function parsed(text: string): StreamRecord {
  try {
    return { item: JSON.parse(text) as unknown };
  } catch {
    return { malformed: excerpt(text), note: 'not JSON' };
  }
}

/** Splits decoded text into records of one format; `end()` gives what the stream's end completes. */
export interface RecordSplitter {
  push(text: string): StreamRecord[];
  end(): StreamRecord[];
}

export function recordSplitter(format: SequenceFormat, limits: Pick<StreamLimits, 'maxRecordBytes' | 'ends'>): RecordSplitter {
  if (format === 'sse') return new EventSplitter(limits.maxRecordBytes, limits.ends);
  return new DelimitedSplitter(format === 'json-seq' ? '\x1e' : '\n', limits.maxRecordBytes);
}

/** JSON Lines (one text per line, CRLF allowed, blank lines skipped) or json-seq (each text after RS). */
class DelimitedSplitter implements RecordSplitter {
  private buffer = '';
  private skipping = false;
  constructor(
    private readonly delimiter: string,
    private readonly maxRecord: number,
  ) {}

  push(text: string): StreamRecord[] {
    const records: StreamRecord[] = [];
    const parts = (this.buffer + text).split(this.delimiter);
    this.buffer = parts.pop() ?? '';
    for (const part of parts) {
      if (this.skipping) this.skipping = false;
      else this.record(part, records);
    }
    if (this.buffer.length > this.maxRecord && !this.skipping) {
      records.push({ malformed: excerpt(this.buffer), note: `a record over ${this.maxRecord} characters, skipped` });
      this.skipping = true;
    }
    if (this.skipping) this.buffer = '';
    return records;
  }

  end(): StreamRecord[] {
    const records: StreamRecord[] = [];
    if (!this.skipping) this.record(this.buffer, records);
    this.buffer = '';
    return records;
  }

  private record(raw: string, into: StreamRecord[]): void {
    const text = raw.trim();
    if (text !== '') into.push(parsed(text));
  }
}

/**
 * Server-sent events by the WHATWG rules: lines end in CRLF, LF or CR; a blank line dispatches
 * the event; `data` lines are joined with LF; a line starting with `:` is a comment; a field
 * without a colon has an empty value; one space after the colon is dropped. An event without
 * data is not dispatched, nor is one the stream ends in the middle of (noted here).
 */
class EventSplitter implements RecordSplitter {
  private line = '';
  private afterCR = false;
  private started = false;
  private data: string[] = [];
  private dataLength = 0;
  private fields: { event?: string; id?: string; retry?: number } = {};
  constructor(
    private readonly maxRecord: number,
    private readonly ends: StreamEndMark[],
  ) {}

  push(text: string): StreamRecord[] {
    const records: StreamRecord[] = [];
    // A byte-order mark is dropped at the stream's start only.
    let chunk = !this.started && text.startsWith('\ufeff') ? text.slice(1) : text;
    if (chunk !== '') this.started = true;
    // A CR that ended the previous chunk already ended its line: an LF right after it belongs to it.
    if (this.afterCR && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCR = chunk.endsWith('\r');
    const lines = (this.line + chunk).split(/\r\n|\r|\n/);
    this.line = lines.pop() ?? '';
    for (const line of lines) this.onLine(line, records);
    if (this.line.length > this.maxRecord) {
      records.push({ malformed: excerpt(this.line), note: `a line over ${this.maxRecord} characters, skipped` });
      this.line = '';
    }
    return records;
  }

  end(): StreamRecord[] {
    const cut = this.line !== '' || this.data.length > 0;
    const text = this.line || this.data.join('\n');
    this.line = '';
    this.reset();
    return cut ? [{ malformed: excerpt(text), note: 'the stream ended inside an event' }] : [];
  }

  private onLine(line: string, records: StreamRecord[]): void {
    if (line === '') return this.dispatch(records);
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const raw = colon < 0 ? '' : line.slice(colon + 1);
    const value = raw.startsWith(' ') ? raw.slice(1) : raw;
    this.onField(field, value, records);
  }

  private onField(field: string, value: string, records: StreamRecord[]): void {
    if (field === 'data') {
      this.dataLength += value.length + 1;
      if (this.dataLength > this.maxRecord) {
        records.push({ malformed: excerpt(this.data.join('\n')), note: `an event over ${this.maxRecord} characters, skipped` });
        this.reset();
        this.dataLength = -Infinity; // the rest of this event's data is skipped too
        return;
      }
      if (this.dataLength > 0) this.data.push(value);
    } else if (field === 'event') this.fields.event = value;
    else if (field === 'id' && !value.includes('\0')) this.fields.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.fields.retry = Number(value);
  }

  private dispatch(records: StreamRecord[]): void {
    const skipped = this.dataLength < 0;
    const data = this.data.join('\n');
    const fields = this.fields;
    const had = this.data.length > 0;
    this.reset();
    if (skipped || !had) return;
    if (this.ends.some((mark) => endsWith(mark, data, fields.event))) return void records.push({ terminal: true });
    records.push({ item: { data: jsonOrText(data), ...fields } });
  }

  private reset(): void {
    this.data = [];
    this.dataLength = 0;
    this.fields = {};
  }
}

/** Whether an event is the mark: its type (`message` when it names none, WHATWG HTML §9.2.6) and its data, where the mark gives them. */
function endsWith(mark: StreamEndMark, data: string, event: string | undefined): boolean {
  return (mark.event === undefined || mark.event === (event ?? 'message')) && (mark.data === undefined || mark.data === data);
}

/** An event's data: the JSON value it is, or the text. */
function jsonOrText(data: string): unknown {
  const record = /^\s*[[{"\d\-tfn]/.test(data) ? parsed(data) : undefined;
  return record !== undefined && 'item' in record ? record.item : data;
}

/** Keeps whole items while they fit `keepBytes`, then counts them; says when the reading must stop. */
export class StreamCollector {
  private readonly read: StreamRead = { items: [], omitted: 0, malformed: [], ended: 'end' };
  private count = 0;
  /** Malformed records among the omitted: counted only, as the items past the budget are. */
  private malformedOmitted = 0;
  private kept = 0;
  private full = false;
  constructor(private readonly limits: Pick<StreamLimits, 'maxItems' | 'keepBytes'>) {}

  /** Items and malformed records read so far. */
  get seen(): number {
    return this.count;
  }

  /** Takes a record; the reason to stop reading, when there is one. */
  add(record: StreamRecord): StreamEnd | undefined {
    if ('terminal' in record) return 'terminal';
    const position = this.count++;
    const value = 'item' in record ? record.item : { at: position, text: record.malformed, note: record.note };
    // Once full, a record is only counted: not even measured.
    const size = this.full ? 0 : utf8Length(JSON.stringify(value) ?? 'null') + 1;
    if (!this.full && this.kept + size <= this.limits.keepBytes) {
      this.kept += size;
      if ('item' in record) this.read.items.push(value);
      else this.read.malformed.push(value as StreamRead['malformed'][number]);
    } else {
      // Whole items from the start: once one does not fit, none after it is kept either.
      this.full = true;
      this.read.omitted++;
      if (!('item' in record)) this.malformedOmitted++;
    }
    return this.count >= this.limits.maxItems ? 'max-items' : undefined;
  }

  result(ended: StreamEnd): StreamRead {
    const { omitted } = this.read;
    const malformed = this.malformedOmitted > 0 ? `, ${this.malformedOmitted} of them not JSON (counted, not shown)` : '';
    const note =
      omitted > 0
        ? `${omitted} of ${this.count} records read were left out to stay within --max-answer-bytes${malformed}; the first ${this.count - omitted} are here`
        : undefined;
    return { ...this.read, ended, ...(note ? { note } : {}) };
  }
}

const encoder = new TextEncoder();
/** UTF-8 length without encoding the common ASCII-only text. */
function utf8Length(text: string): number {
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}

/**
 * The read with the items `fits` refuses (one off the spec's itemSchema) moved to `malformed`
 * with the reason, so that one stray item does not make the whole answer fail its outputSchema.
 * `fits` checks a whole result, so each item is checked alone in one.
 */
export function conformed(read: StreamRead, fits: ((value: unknown) => boolean) & { describe(): string }): StreamRead {
  if (fits(read)) return read;
  const items: unknown[] = [];
  const malformed = [...read.malformed];
  const taken = new Set(read.malformed.map((record) => record.at));
  let at = 0;
  for (const item of read.items) {
    while (taken.has(at)) at++;
    if (fits({ items: [item], omitted: 0, malformed: [], ended: read.ended })) items.push(item);
    else
      malformed.push({ at, text: excerpt(JSON.stringify(item) ?? ''), note: `does not match the spec's item schema: ${fits.describe()}` });
    at++;
  }
  return { ...read, items, malformed: malformed.sort((a, b) => a.at - b.at) };
}

/** The short text an item carries where one is obvious: a `delta`, `text` or `content` string, as chat APIs stream. */
export function shortText(value: unknown, depth = 0): string | undefined {
  if (depth > 5 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) return value.length > 0 ? shortText(value[0], depth + 1) : undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['delta', 'text', 'content']) {
    const field = record[key];
    if (typeof field === 'string') return field.length > 80 ? field.slice(0, 80) + '…' : field;
  }
  for (const key of ['data', 'choices', 'delta', 'message', 'content']) {
    const found = shortText(record[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** How one streamed answer is read. */
export interface StreamReading {
  format: SequenceFormat;
  limits: StreamLimits;
  /** --stream-time-ms: the reading ends there with what it has. */
  timeMs: number;
  /** Whether an item ends the stream (a hook's say): it is then not kept, as a terminal event is not. */
  endsAt?: (item: unknown) => boolean;
  /** Told of each item (not of malformed records): how many records so far, and the item. */
  onItem?: (seen: number, item: unknown) => void;
  /** Stops the download at once (the body's iteration then ends or fails). */
  abandon: () => void;
  /** Why the body failed when the call's own limit or its client stopped it: a timeout keeps what was read. */
  stoppedBy: () => 'timeout' | 'cancelled' | undefined;
}

/** Reads a streamed body to its end or a limit: the items kept, counted and why it ended. A cancelled call throws. */
export async function readStreamed(body: AsyncIterable<Uint8Array> | null, reading: StreamReading): Promise<StreamRead> {
  const splitter = recordSplitter(reading.format, reading.limits);
  const collector = new StreamCollector(reading.limits);
  const decoder = new TextDecoder();
  let ended: StreamEnd | undefined;
  const take = (records: StreamRecord[]): StreamEnd | undefined => {
    for (const record of records) {
      if ('item' in record && reading.endsAt?.(record.item) === true) return 'terminal';
      const stop = collector.add(record);
      if ('item' in record) reading.onItem?.(collector.seen, record.item);
      if (stop !== undefined) return stop;
    }
    return undefined;
  };
  const timer = setTimeout(() => {
    ended ??= 'time';
    reading.abandon();
  }, reading.timeMs);
  try {
    for await (const chunk of body ?? []) {
      ended ??= take(splitter.push(decoder.decode(chunk, { stream: true })));
      if (ended !== undefined) break;
    }
    ended ??= take([...splitter.push(decoder.decode()), ...splitter.end()]) ?? 'end';
  } catch (error) {
    ended = brokenOff(ended, reading.stoppedBy(), error);
  } finally {
    clearTimeout(timer);
    reading.abandon();
  }
  return collector.result(ended);
}

/** Why a body that failed ended: the limit that stopped it, else the connection broke off; a cancel is the caller's to report. */
function brokenOff(ended: StreamEnd | undefined, stoppedBy: 'timeout' | 'cancelled' | undefined, error: unknown): StreamEnd {
  if (ended !== undefined) return ended;
  if (stoppedBy === 'cancelled') throw error;
  return stoppedBy === 'timeout' ? 'timeout' : 'broken';
}
