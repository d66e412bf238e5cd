import { Inject, Injectable } from '@nestjs/common';
import { ApiKeyAuthService } from '../api-keys/api-key-auth.service';
import { INVALID_KEY, INVALID_SESSION } from '../api-keys/api-key.guard';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { encodeSession, sessionSetCookie } from '../api-keys/session-cookie';
import type { KeyAuth } from '../common/auth';
import { AuthError } from '../common/errors';
import { sortScopes, type Scope } from '../common/scopes';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { WorkspacesService } from '../workspaces/workspaces.service';
import type { SessionDto, SignInDto } from './dto/session.dto';

/**
 * Console sessions (design §12): sign-in turns an API key and a reviewer name into the session cookie;
 * nothing is stored on the server (see session-cookie.ts for why the cookie needs no signature).
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly auth: ApiKeyAuthService,
    private readonly keys: ApiKeysService,
    private readonly workspaces: WorkspacesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The session of a valid key, and the `Set-Cookie` that holds it; 401 for a bad or revoked key. */
  async signIn(
    dto: SignInDto,
    secure: boolean,
  ): Promise<{ session: SessionDto; setCookie: string }> {
    const key = await this.auth.authenticate(dto.apiKey);
    if (!key) throw new AuthError(INVALID_KEY);
    const ttlMs = this.config.console.sessionTtlMs;
    const expiresAt = new Date(Date.now() + ttlMs);
    const session = await this.describe({
      ...key,
      reviewerName: dto.reviewerName,
      expiresAt,
    });
    const value = encodeSession({ key: dto.apiKey, reviewerName: dto.reviewerName, expiresAt });
    return { session, setCookie: sessionSetCookie(value, Math.floor(ttlMs / 1000), secure) };
  }

  /**
   * The session the request came with. A request that authenticated with x-api-key has none (the
   * header wins over a cookie sent beside it), which the console treats like an expired session.
   */
  current(auth: KeyAuth): Promise<SessionDto> {
    if (auth.via !== 'session' || !auth.reviewerName || !auth.sessionExpiresAt) {
      throw new AuthError(INVALID_SESSION);
    }
    return this.describe({
      keyId: auth.keyId,
      workspaceId: auth.workspaceId,
      scopes: auth.scopes,
      reviewerName: auth.reviewerName,
      expiresAt: auth.sessionExpiresAt,
    });
  }

  /** The `Set-Cookie` that makes the browser drop the session cookie. */
  signOut(secure: boolean): string {
    return sessionSetCookie('', 0, secure);
  }

  private async describe(s: {
    keyId: string;
    workspaceId: string;
    /** As the key lookup read them, with the key itself. */
    scopes: readonly Scope[];
    reviewerName: string;
    expiresAt: Date;
  }): Promise<SessionDto> {
    const [workspace, keyName] = await Promise.all([
      this.workspaces.get(s.workspaceId),
      this.keys.activeKeyName(s.workspaceId, s.keyId),
    ]);
    // Revoked between the key check and this read: as if it had been a moment earlier.
    if (keyName === undefined) throw new AuthError(INVALID_SESSION);
    return {
      workspaceId: s.workspaceId,
      workspaceName: workspace.name,
      keyId: s.keyId,
      keyName,
      scopes: sortScopes(s.scopes),
      reviewerName: s.reviewerName,
      expiresAt: s.expiresAt.toISOString(),
    };
  }
}
