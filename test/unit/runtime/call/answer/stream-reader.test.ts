// A streamed answer read item by item (src/runtime/call/answer/stream-reader.ts): server-sent
// events by the WHATWG rules, JSON Lines and json-seq records, malformed records kept as text,
// the answer budget and the limits, and a body that never ends stopped at --stream-time-ms.
import { describe, expect, it } from 'vitest';
import {
  conformed,
  readStreamed,
  recordSplitter,
  shortText,
  StreamCollector,
  type StreamLimits,
  type StreamRecord,
} from '../../../../../src/runtime/call/answer/stream-reader.js';
import { fromWebResponse } from '../../../../../src/runtime/call/send/upstream.js';
import type { SequenceFormat } from '../../../../../src/contract/media.js';

const LIMITS: StreamLimits = { maxItems: 1_000, keepBytes: 100_000, maxRecordBytes: 1_000, ends: [{ data: '[DONE]' }] };

/** The records `chunks` split into, fed one chunk at a time, then the stream's end. */
function split(format: SequenceFormat, chunks: string[], limits = LIMITS): StreamRecord[] {
  const splitter = recordSplitter(format, limits);
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
}

describe('server-sent events, by the WHATWG rules', () => {
  it('joins data lines with LF, keeps event, id and retry, ignores comments, and parses JSON data', () => {
    const stream = ': a comment\nevent: update\nid: 7\nretry: 3000\ndata: {"a":\ndata: 1}\n\ndata: plain text\ndata\n\n';
    expect(split('sse', [stream])).toEqual([
      { item: { data: { a: 1 }, event: 'update', id: '7', retry: 3000 } },
      { item: { data: 'plain text\n' } },
    ]);
  });

  it('ends lines at CRLF, CR or LF, also when a CRLF is split between chunks, and drops a leading BOM', () => {
    expect(split('sse', ['\ufeffdata: 1\r', '\n\r', 'data: 2\r\rdata:3\n', '\n'])).toEqual([
      { item: { data: 1 } },
      { item: { data: 2 } },
      { item: { data: 3 } },
    ]);
  });

  it('drops one space after the colon only, an invalid retry, and an event without data', () => {
    expect(split('sse', ['event: ping\n\ndata:  two spaces\nretry: 1s\n\n'])).toEqual([{ item: { data: ' two spaces' } }]);
  });

  it('ends at an event the spec names: by its type (message when it names none), its data, or both', () => {
    const ends = [{ event: 'message_stop' }, { event: 'message', data: 'bye' }];
    const stream = 'data: [DONE]\n\nevent: other\ndata: bye\n\ndata: bye\n\n';
    expect(split('sse', [stream], { ...LIMITS, ends })).toEqual([
      { item: { data: '[DONE]' } },
      { item: { data: 'bye', event: 'other' } },
      { terminal: true },
    ]);
    expect(split('sse', ['event: message_stop\ndata: {"type":"message_stop"}\n\n'], { ...LIMITS, ends })).toEqual([{ terminal: true }]);
  });

  it('ends at the terminal data [DONE], and notes an event the stream ended inside of', () => {
    expect(split('sse', ['data: {"x":1}\n\ndata: [DONE]\n\n'])).toEqual([{ item: { data: { x: 1 } } }, { terminal: true }]);
    expect(split('sse', ['data: {"x":1}\n\ndata: {"cut'])).toEqual([
      { item: { data: { x: 1 } } },
      { malformed: 'data: {"cut', note: 'the stream ended inside an event' },
    ]);
  });

  it('skips an event whose data is longer than the record limit, with a note, and reads on', () => {
    const long = 'x'.repeat(600);
    const records = split('sse', [`data: ${long}\ndata: ${long}\ndata: more\n\ndata: 2\n\n`]);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ note: 'an event over 1000 characters, skipped' });
    expect(records[1]).toEqual({ item: { data: 2 } });
  });
});

describe('JSON Lines and json-seq', () => {
  it('parses each line, across chunk boundaries, with CRLF and blank lines, the last one without a newline', () => {
    expect(split('lines', ['{"n":1}\r\n{"n"', ':2}\n\n', '{"n":3}'])).toEqual([{ item: { n: 1 } }, { item: { n: 2 } }, { item: { n: 3 } }]);
  });

  it('keeps a malformed line as text with a note, and reads on', () => {
    expect(split('lines', ['{"n":1}\nnot json\n{"n":2}\n'])).toEqual([
      { item: { n: 1 } },
      { malformed: 'not json', note: 'not JSON' },
      { item: { n: 2 } },
    ]);
  });

  it('skips a line longer than the record limit without holding it', () => {
    const records = split('lines', ['{"n":1}\n' + 'y'.repeat(800), 'y'.repeat(800), 'yyy\n{"n":2}\n']);
    expect(records.map((r) => ('item' in r ? r.item : 'note' in r ? r.note : r))).toEqual([
      { n: 1 },
      'a record over 1000 characters, skipped',
      { n: 2 },
    ]);
  });

  it('json-seq: each text after an RS (RFC 7464)', () => {
    expect(split('json-seq', ['\x1e{"n":1}\n\x1e', '[2]\n\x1e{"cut'])).toEqual([
      { item: { n: 1 } },
      { item: [2] },
      { malformed: '{"cut', note: 'not JSON' },
    ]);
  });
});

describe('the collector: whole items within the budget, the rest counted', () => {
  it('keeps the leading items that fit, counts the others, and says so', () => {
    // Each `{"n":0}` takes 7 bytes and its comma: four fit in 32.
    const collector = new StreamCollector({ maxItems: 100, keepBytes: 32 });
    for (let n = 0; n < 10; n++) expect(collector.add({ item: { n } })).toBeUndefined();
    const read = collector.result('end');
    expect(read.items).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    expect(read.omitted).toBe(6);
    expect(read.note).toMatch(/^6 of 10 records read were left out/);
  });

  it('counts the records that were not JSON past the budget, and the note says how many of the left out they are', () => {
    const collector = new StreamCollector({ maxItems: 100, keepBytes: 16 });
    collector.add({ item: { n: 0 } });
    collector.add({ item: { n: 1, long: 'x'.repeat(20) } });
    collector.add({ malformed: 'not json', note: 'not JSON' });
    collector.add({ malformed: 'nor this', note: 'not JSON' });
    const read = collector.result('end');
    expect(read).toMatchObject({ items: [{ n: 0 }], malformed: [], omitted: 3 });
    expect(read.note).toBe(
      '3 of 4 records read were left out to stay within --max-answer-bytes, 2 of them not JSON (counted, not shown); the first 1 are here',
    );
  });

  it('stops at the most items', () => {
    const collector = new StreamCollector({ maxItems: 2, keepBytes: 1_000 });
    expect(collector.add({ item: 1 })).toBeUndefined();
    expect(collector.add({ item: 2 })).toBe('max-items');
  });
});

describe('readStreamed', () => {
  const encoder = new TextEncoder();
  const reading = (format: SequenceFormat, abandon: () => void, timeMs = 5_000) => ({
    format,
    limits: LIMITS,
    timeMs,
    abandon,
    stoppedBy: () => undefined,
  });

  it('decodes a character split between chunks, and tells each item as it comes', async () => {
    const bytes = encoder.encode('{"t":"é"}\n{"t":"ü"}\n');
    const chunks = [bytes.subarray(0, 7), bytes.subarray(7)];
    const told: [number, unknown][] = [];
    const read = await readStreamed(
      (async function* () {
        yield* chunks;
      })(),
      { ...reading('lines', () => undefined), onItem: (seen, item) => void told.push([seen, item]) },
    );
    expect(read).toEqual({ items: [{ t: 'é' }, { t: 'ü' }], omitted: 0, malformed: [], ended: 'end' });
    expect(told).toEqual([
      [1, { t: 'é' }],
      [2, { t: 'ü' }],
    ]);
  });

  it("stops a body that never ends at its time, through fetch's Response, and cancels the stream", async () => {
    let cancelled = false;
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (n < 3) controller.enqueue(encoder.encode(`data: {"n":${n++}}\n\n`));
        else await new Promise(() => undefined); // then nothing more, ever
      },
      cancel: () => void (cancelled = true),
    });
    const response = fromWebResponse(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
    const started = Date.now();
    const read = await readStreamed(
      response.body,
      reading('sse', () => response.discard(), 300),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(read.ended).toBe('time');
    expect(read.items).toEqual([{ data: { n: 0 } }, { data: { n: 1 } }, { data: { n: 2 } }]);
    expect(cancelled).toBe(true);
  }, 10_000);

  it('a body that breaks off ends the reading with what it has; a cancelled call throws', async () => {
    const broken = async function* () {
      yield encoder.encode('[1]\n');
      throw new Error('socket hang up');
    };
    await expect(
      readStreamed(
        broken(),
        reading('lines', () => undefined),
      ),
    ).resolves.toMatchObject({ items: [[1]], ended: 'broken' });
    await expect(readStreamed(broken(), { ...reading('lines', () => undefined), stoppedBy: () => 'cancelled' })).rejects.toThrow(
      'socket hang up',
    );
    await expect(readStreamed(broken(), { ...reading('lines', () => undefined), stoppedBy: () => 'timeout' })).resolves.toMatchObject({
      ended: 'timeout',
    });
  });
});

describe("conformed: items off the spec's item schema moved to malformed, by their place in the stream", () => {
  // A whole result fits when each of its items is a number (as an outputSchema check would say).
  const fits = Object.assign((value: unknown) => (value as { items: unknown[] }).items.every((item) => typeof item === 'number'), {
    describe: () => 'items/0 must be number',
  });

  it('keeps a fitting read as it is, and moves a stray item with the reason', () => {
    const read = { items: [1, 2], omitted: 0, malformed: [], ended: 'end' as const };
    expect(conformed(read, fits)).toBe(read);
    const stray = conformed({ items: [1, 'two', 3], omitted: 0, malformed: [{ at: 1, text: 'x', note: 'not JSON' }], ended: 'end' }, fits);
    expect(stray.items).toEqual([1, 3]);
    expect(stray.malformed).toEqual([
      { at: 1, text: 'x', note: 'not JSON' },
      { at: 2, text: '"two"', note: "does not match the spec's item schema: items/0 must be number" },
    ]);
  });
});

describe('shortText: the text an item obviously carries', () => {
  it('finds a chat completion chunk’s delta content, a text field, or nothing', () => {
    expect(shortText({ data: { choices: [{ delta: { content: 'Hello' } }] } })).toBe('Hello');
    expect(shortText({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'Hi' } })).toBe('Hi');
    expect(shortText({ id: 1, name: 'x' })).toBeUndefined();
    expect(shortText('plain')).toBeUndefined();
  });
});
