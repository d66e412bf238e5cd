import { jsonBytes } from '../common/limits';
import type { StepDefinition } from '../steps/step-definition';

/**
 * The executor's cache of definition steps (definitions are immutable, so an entry never goes stale),
 * bounded by approximate bytes rather than entries: with definitions of up to MAX_DEFINITION_BYTES,
 * a count bound let a few tenants pin gigabytes. Least recently used entries leave first. The size
 * of an entry is the UTF-8 length of its JSON; the parsed objects take a small multiple of that, so
 * the bound is on the order of the memory held, not an exact figure.
 */
export class DefinitionCache<V = StepDefinition[]> {
  /** Map iteration follows insertion order: re-inserting on every hit keeps the oldest first. */
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private totalBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number = jsonBytes,
  ) {}

  get(definitionId: string): V | undefined {
    const entry = this.entries.get(definitionId);
    if (!entry) return undefined;
    this.entries.delete(definitionId);
    this.entries.set(definitionId, entry);
    return entry.value;
  }

  set(definitionId: string, value: V): void {
    this.delete(definitionId);
    const bytes = this.sizeOf(value);
    // An entry larger than the whole cache would only evict everything else and then itself.
    if (bytes > this.maxBytes) return;
    this.entries.set(definitionId, { value, bytes });
    this.totalBytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
  }

  /** Approximate bytes held. */
  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(definitionId: string): void {
    const entry = this.entries.get(definitionId);
    if (!entry) return;
    this.entries.delete(definitionId);
    this.totalBytes -= entry.bytes;
  }
}
