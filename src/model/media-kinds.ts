// The kinds of the media types a spec names (contract/media.ts), each worked out once: a spec
// names a few media types thousands of times, in every operation's answers.

import { mediaKind, type MediaKind } from '../contract/media.js';
import type { JsonObject } from '../parse/pointer.js';

const kinds = new Map<string, MediaKind>();

/** mediaKind, remembered by media type. */
export function kindOf(mediaType: string): MediaKind {
  let kind = kinds.get(mediaType);
  if (kind === undefined) kinds.set(mediaType, (kind = mediaKind(mediaType)));
  return kind;
}

/** The first media type of a Content map that is JSON. */
export function jsonMediaOf(content: JsonObject): string | undefined {
  for (const media in content) if (kindOf(media) === 'json') return media;
  return undefined;
}
