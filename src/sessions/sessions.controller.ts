import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentKeyAuth, KeyAuth, NoScope, Open, SameOriginOnly } from '../common/auth';
import { ApiEnvelope, ApiErrors, BODY_ERRORS } from '../common/swagger';
import { SessionDto, SignedOutDto, SignInDto } from './dto/session.dto';
import { SessionsService } from './sessions.service';

const SET_COOKIE = {
  'Set-Cookie': {
    description:
      '`orchestrator_session=<value>; Path=/; HttpOnly; SameSite=Strict; Max-Age=<seconds>`, plus ' +
      '`Secure` when the request came over HTTPS (behind proxies trusted by TRUST_PROXY: ' +
      'X-Forwarded-Proto)',
    schema: { type: 'string' },
  },
};

@ApiTags('console')
@Controller('v1/console/session')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post()
  @HttpCode(201)
  @Open()
  @SameOriginOnly()
  @ApiOperation({
    summary: 'Sign in to the console: an API key and a reviewer name become a session cookie',
    description:
      'No x-api-key: the key is in the body, checked exactly like x-api-key. The answer sets the ' +
      'HttpOnly session cookie, which later requests use instead of x-api-key; decisions made with ' +
      'it record `reviewerName` as `decidedBy`. Needs an Origin of this service or of ' +
      'CONSOLE_ALLOWED_ORIGINS (403 FORBIDDEN otherwise). Rate-limited per client address like ' +
      'every request without a valid key. 401 `invalid or revoked API key` for a bad key.',
  })
  @ApiEnvelope(SessionDto, 201, 'one', SET_COOKIE)
  @ApiErrors(...BODY_ERRORS, 401, 403)
  async signIn(
    @Body() dto: SignInDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SessionDto> {
    const { session, setCookie } = await this.sessions.signIn(dto, req.secure);
    res.setHeader('Set-Cookie', setCookie);
    return session;
  }

  @Get()
  @NoScope()
  @ApiSecurity('api-key')
  @ApiOperation({
    summary: 'The console session of the session cookie',
    description:
      '401 `console session expired or invalid; sign in again` when the cookie is malformed or ' +
      'expired, when its key was revoked, or when the request authenticated with x-api-key (which ' +
      'has no session); 401 `missing x-api-key header` without cookie and key.',
  })
  @ApiEnvelope(SessionDto)
  @ApiErrors(401)
  current(@CurrentKeyAuth() auth: KeyAuth): Promise<SessionDto> {
    return this.sessions.current(auth);
  }

  @Delete()
  @Open()
  @ApiOperation({
    summary: 'Sign out of the console: clears the session cookie',
    description:
      'Always 200, with or without a valid session. The cookie holds no server-side state, so ' +
      'clearing it ends the session; to make a key that was used in a session useless everywhere, ' +
      'revoke the key.',
  })
  @ApiEnvelope(SignedOutDto, 200, 'one', SET_COOKIE)
  @ApiErrors()
  signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response): SignedOutDto {
    res.setHeader('Set-Cookie', this.sessions.signOut(req.secure));
    return { signedOut: true };
  }
}
