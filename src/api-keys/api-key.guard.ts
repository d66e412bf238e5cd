import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  AUTH_MODE,
  AuthMode,
  AuthenticatedRequest,
  INVALID_KEY,
  KeyAuth,
  readHeader,
  REQUIRED_SCOPE,
  SAME_ORIGIN,
  type ScopeDeclaration,
} from '../common/auth';
import { AuthError, ForbiddenError } from '../common/errors';
import { firstMissingScope, lacksScopeMessage, SCOPES } from '../common/scopes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiKeyAuthService } from './api-key-auth.service';
import { CROSS_SITE_REFUSED, isUnsafeMethod, originAllowed } from './same-origin';

export const MISSING_KEY = 'missing x-api-key header';
export { INVALID_KEY };
export const INVALID_SESSION = 'console session expired or invalid; sign in again';

/** Deny by default: every route needs an API key unless it declares another way in (part 5, design §2). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: ApiKeyAuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const mode = this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (mode === 'public') return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const sameOriginOnly = this.reflector.getAllAndOverride<boolean | undefined>(SAME_ORIGIN, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (sameOriginOnly) this.checkOrigin(req);
    if (mode === 'open') return true;
    if (mode === 'admin') {
      this.checkAdminToken(req);
      return true;
    }
    const key = await this.auth.resolve(req, context);
    if (key.kind === 'key') {
      // A browser sends the session cookie with whatever a page on another site makes it request;
      // x-api-key it never adds by itself, so API clients are never asked for an Origin.
      if (key.via === 'session' && isUnsafeMethod(req.method)) this.checkOrigin(req);
      await this.checkScope(context, key);
      req.auth = key;
      return true;
    }
    if (key.kind === 'invalid') throw new AuthError(INVALID_KEY);
    if (key.kind === 'invalid-session') throw new AuthError(INVALID_SESSION);
    if (mode === 'key-or-bootstrap') {
      if (this.config.adminToken) {
        const admin = readHeader(req, 'x-admin-token');
        if (admin.value === undefined && !admin.malformed) throw new AuthError(MISSING_KEY);
        this.checkAdminToken(req);
        req.auth = { kind: 'admin' };
      } else {
        req.auth = { kind: 'bootstrap' };
      }
      return true;
    }
    throw new AuthError(MISSING_KEY);
  }

  /**
   * The route's scope, from the scopes the key lookup already read (no query of its own). A route
   * that declares nothing (an extension's controller, say) is open only to keys holding every scope:
   * a restricted key never reaches what nobody decided it may. A cached key (README "API key cache")
   * is confirmed before a 403: a revoked key gets 401, as it would without the cache.
   */
  private async checkScope(context: ExecutionContext, key: KeyAuth): Promise<void> {
    const declared = this.reflector.getAllAndOverride<ScopeDeclaration | undefined>(
      REQUIRED_SCOPE,
      [context.getHandler(), context.getClass()],
    );
    if (declared === 'none') return;
    const missing =
      declared === undefined
        ? firstMissingScope(SCOPES, key.scopes)
        : key.scopes.includes(declared)
          ? undefined
          : declared;
    if (missing === undefined) return;
    await key.cached?.confirm();
    throw new ForbiddenError(lacksScopeMessage(missing));
  }

  private checkOrigin(req: AuthenticatedRequest): void {
    if (!originAllowed(req, this.config.console.allowedOrigins)) {
      throw new ForbiddenError(CROSS_SITE_REFUSED);
    }
  }

  private checkAdminToken(req: AuthenticatedRequest): void {
    if (!this.config.adminToken) return;
    const admin = readHeader(req, 'x-admin-token');
    if (admin.value === undefined && !admin.malformed) {
      throw new AuthError('missing x-admin-token header');
    }
    if (!this.auth.adminTokenMatches(admin.value)) throw new AuthError('invalid admin token');
  }
}
