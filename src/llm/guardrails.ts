import { PatternMatcher } from '../common/linear-regex';
import type { LlmGuardrails } from '../steps/step-definition';
import { MAX_SCHEMA_ERRORS, SchemaCheckError, validateJsonSchema } from './json-schema';

export type GuardrailName =
  'maxOutputChars' | 'blockedPatterns' | 'requiredPatterns' | 'jsonSchema';

export interface GuardrailViolation {
  guardrail: GuardrailName;
  reason: string;
}

export class JsonAnswerError extends Error {}

/**
 * The inside of a single Markdown code fence around the whole text (```json ... ```), or the text.
 * Cut by position rather than by a regular expression: `\s*\n` before a lazy body backtracks
 * quadratically on an answer of many newlines (40 000 took a second), and answers are
 * tenant-influenced.
 */
function unfence(trimmed: string): string {
  const FENCE = '```';
  const newline = trimmed.indexOf('\n');
  if (!trimmed.startsWith(FENCE) || !trimmed.endsWith(FENCE) || newline < 0) return trimmed;
  if (newline + 1 > trimmed.length - FENCE.length) return trimmed;
  if (!/^[A-Za-z0-9_-]*\s*$/.test(trimmed.slice(FENCE.length, newline))) return trimmed;
  return trimmed.slice(newline + 1, trimmed.length - FENCE.length);
}

/**
 * Parses a model's JSON answer. A single surrounding Markdown code fence (```json ... ```) is removed
 * first: models without a JSON mode (Anthropic's) often wrap their answer in one.
 */
export function parseJsonAnswer(text: string): unknown {
  const body = unfence(text.trim());
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new JsonAnswerError(
      `response is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Schema violations written into a jsonSchema reason; the count of the others follows. */
const SHOWN_SCHEMA_ERRORS = 5;

function quote(pattern: string): string {
  return JSON.stringify(pattern);
}

/**
 * Whether `pattern` matches `text`, or the reason it could not be checked (a pattern stored before
 * the linear-time engine that it cannot run, or a check over its work budget): such an answer is
 * not let through unchecked.
 */
function patternMatches(patterns: PatternMatcher, pattern: string, text: string): boolean | string {
  try {
    return patterns.test(pattern, text);
  } catch (err) {
    return `the pattern ${quote(pattern)} could not be checked: ${(err as Error).message}`;
  }
}

/**
 * The first guardrail the answer breaks, or null. Checked in this order: maxOutputChars (characters
 * of the text), blockedPatterns (none may match), requiredPatterns (each must match), jsonSchema
 * (against `json` when the step asked for JSON, else against the text parsed as JSON). Patterns are
 * RE2 regular expressions without flags (linear-time matching, common/linear-regex.ts), validated
 * when the definition was created; all of one answer's patterns share one work budget. An answer
 * the schema cannot be checked against within its budget (json-schema.ts) breaks the guardrail.
 */
export function checkGuardrails(
  text: string,
  json: unknown,
  guardrails: LlmGuardrails | undefined,
): GuardrailViolation | null {
  if (!guardrails) return null;
  const { maxOutputChars, blockedPatterns, requiredPatterns, jsonSchema } = guardrails;
  if (maxOutputChars !== undefined) {
    const length = [...text].length;
    if (length > maxOutputChars) {
      return {
        guardrail: 'maxOutputChars',
        reason: `output has ${length} characters, more than the ${maxOutputChars} allowed`,
      };
    }
  }
  const patterns = new PatternMatcher();
  for (const pattern of blockedPatterns ?? []) {
    const matched = patternMatches(patterns, pattern, text);
    if (matched !== false) {
      const reason =
        matched === true ? `output matches the blocked pattern ${quote(pattern)}` : matched;
      return { guardrail: 'blockedPatterns', reason };
    }
  }
  for (const pattern of requiredPatterns ?? []) {
    const matched = patternMatches(patterns, pattern, text);
    if (matched !== true) {
      const reason =
        matched === false
          ? `output does not match the required pattern ${quote(pattern)}`
          : matched;
      return { guardrail: 'requiredPatterns', reason };
    }
  }
  if (jsonSchema !== undefined) {
    let value = json;
    if (value === undefined) {
      try {
        value = parseJsonAnswer(text);
      } catch (err) {
        return { guardrail: 'jsonSchema', reason: (err as Error).message };
      }
    }
    let errors: string[];
    try {
      errors = validateJsonSchema(value, jsonSchema, patterns);
    } catch (err) {
      if (!(err instanceof SchemaCheckError)) throw err;
      return {
        guardrail: 'jsonSchema',
        reason: `output could not be checked against jsonSchema: ${err.message}`,
      };
    }
    if (errors.length > 0) {
      const shown = errors.slice(0, SHOWN_SCHEMA_ERRORS).join('; ');
      // The validator stops collecting at MAX_SCHEMA_ERRORS: past it the count is unknown.
      const hidden = errors.length - SHOWN_SCHEMA_ERRORS;
      const count = errors.length >= MAX_SCHEMA_ERRORS ? `at least ${hidden}` : String(hidden);
      const more = hidden > 0 ? ` (and ${count} more)` : '';
      return {
        guardrail: 'jsonSchema',
        reason: `output does not match jsonSchema: ${shown}${more}`,
      };
    }
  }
  return null;
}
