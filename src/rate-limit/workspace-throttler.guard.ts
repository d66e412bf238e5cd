import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ThrottlerGuard,
  ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
} from '@nestjs/throttler';
import { ApiKeyAuthService } from '../api-keys/api-key-auth.service';
import type { Request } from 'express';
import { AUTH_MODE, AuthMode, AuthenticatedRequest } from '../common/auth';
import { clientAddress } from '../common/http-middleware';

/**
 * Rate limit per workspace (design §1, §9). Runs before the API-key guard so that requests with no valid
 * key are limited too, per client address. Headers follow the IETF RateLimit draft names.
 */
@Injectable()
export class WorkspaceThrottlerGuard extends ThrottlerGuard {
  protected override headerPrefix = 'RateLimit';

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly auth: ApiKeyAuthService,
  ) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const mode = this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, [
      context.getHandler(),
      context.getClass(),
    ]);
    return mode === 'public';
  }

  /** The library passes the route's context too (ThrottlerGetTrackerFunction). */
  protected override async getTracker(
    req: Record<string, unknown>,
    context?: ExecutionContext,
  ): Promise<string> {
    const key = await this.auth.resolve(req as unknown as AuthenticatedRequest, context);
    // Requests without a valid key count per client address: the TCP peer, or behind trusted proxies
    // (TRUST_PROXY) the address they forwarded.
    return key.kind === 'key'
      ? `ws:${key.workspaceId}`
      : `ip:${clientAddress(req as unknown as Request)}`;
  }

  /**
   * One counter per tracker (workspace or address) for the whole API. The library's default key adds
   * the controller and handler names, which would give every route its own budget. (Storages keep
   * the throttler name apart themselves.)
   */
  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return tracker;
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const { req, res } = this.getRequestResponse(context);
    // A revoked key gets 401 as without the key cache, not its workspace's 429.
    const key = await this.auth.resolve(req as unknown as AuthenticatedRequest, context);
    if (key.kind === 'key') await key.cached?.confirm();
    this.setResponseHeader(res, 'RateLimit-Limit', detail.limit);
    this.setResponseHeader(res, 'RateLimit-Remaining', 0);
    this.setResponseHeader(res, 'RateLimit-Reset', detail.timeToExpire);
    return super.throwThrottlingException(context, detail);
  }
}
