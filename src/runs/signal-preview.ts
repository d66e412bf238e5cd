import { SIGNAL_PREVIEW_CHARS } from './dto/signal.dto';

/**
 * The preview a run's read lists of a buffered signal's payload: its JSON text, cut after
 * SIGNAL_PREVIEW_CHARS characters (code points, so that no surrogate pair is split) and then ending
 * in `…`. Made once, when the signal is buffered, so that reading a run never loads the payloads.
 */
export function payloadPreview(json: string, max = SIGNAL_PREVIEW_CHARS): string {
  // Most payloads are short: no need to split them into code points.
  if (json.length <= max) return json;
  const chars = Array.from(json);
  return chars.length <= max ? json : `${chars.slice(0, max).join('')}…`;
}
