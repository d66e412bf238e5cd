import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { readHeader } from '../common/auth';
import type { AuthenticatedRequest } from '../common/auth';
import { ApiKeysRepository } from './api-keys.repository';

export type KeyResolution =
  { kind: 'none' } | { kind: 'invalid' } | { kind: 'key'; keyId: string; workspaceId: string };

const RESOLUTION = Symbol('keyResolution');
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): string {
  return `svc_${randomBytes(32).toString('base64url')}`;
}

/** Resolves `x-api-key` to a workspace, once per request, and keeps `lastUsedAt` roughly current. */
@Injectable()
export class ApiKeyAuthService {
  private readonly logger = new Logger(ApiKeyAuthService.name);
  private readonly lastWrite = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeysRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  resolve(req: AuthenticatedRequest): Promise<KeyResolution> {
    const memo = req as unknown as Record<symbol, Promise<KeyResolution> | undefined>;
    memo[RESOLUTION] ??= this.lookup(req);
    return memo[RESOLUTION];
  }

  private async lookup(req: AuthenticatedRequest): Promise<KeyResolution> {
    const header = readHeader(req, 'x-api-key');
    if (header.malformed) return { kind: 'invalid' };
    if (!header.value) return { kind: 'none' };
    if (!header.value.startsWith('svc_')) return { kind: 'invalid' };
    const found = await this.keys.findActive(hashApiKey(header.value));
    if (!found) return { kind: 'invalid' };
    const { id, workspace_id } = found;
    await this.touch(id);
    return { kind: 'key', keyId: id, workspaceId: workspace_id };
  }

  /**
   * Writes `last_used_at` at most once a minute per key and process, so that a busy key costs no write
   * per request. A failed write never fails the request.
   */
  private async touch(keyId: string): Promise<void> {
    const now = Date.now();
    const last = this.lastWrite.get(keyId);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    if (this.lastWrite.size >= 10_000) this.lastWrite.clear();
    this.lastWrite.set(keyId, now);
    await this.keys
      .touch(keyId)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not record lastUsedAt'));
  }

  /** Constant-time comparison of a presented admin token with ADMIN_TOKEN. */
  adminTokenMatches(presented: string | undefined): boolean {
    const expected = this.config.adminToken;
    if (!expected || !presented) return false;
    const a = createHash('sha256').update(presented).digest();
    const b = createHash('sha256').update(expected).digest();
    return timingSafeEqual(a, b);
  }
}
