import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AUTH_MODE, AuthMode, AuthenticatedRequest, readHeader } from '../common/auth';
import { AuthError } from '../common/errors';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiKeyAuthService } from './api-key-auth.service';

export const MISSING_KEY = 'missing x-api-key header';
export const INVALID_KEY = 'invalid or revoked API key';

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
    if (mode === 'admin') {
      this.checkAdminToken(req);
      return true;
    }
    const key = await this.auth.resolve(req);
    if (key.kind === 'key') {
      req.auth = key;
      return true;
    }
    if (key.kind === 'invalid') throw new AuthError(INVALID_KEY);
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

  private checkAdminToken(req: AuthenticatedRequest): void {
    if (!this.config.adminToken) return;
    const admin = readHeader(req, 'x-admin-token');
    if (admin.value === undefined && !admin.malformed) {
      throw new AuthError('missing x-admin-token header');
    }
    if (!this.auth.adminTokenMatches(admin.value)) throw new AuthError('invalid admin token');
  }
}
