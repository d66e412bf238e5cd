import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Validate } from 'class-validator';
import type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
import { ValidatorConstraint } from 'class-validator';
import { REVIEWER_NAME_MAX_LENGTH, reviewerNameProblem } from '../../api-keys/session-cookie';
import { SCOPES, type Scope } from '../../common/scopes';

@ValidatorConstraint({ name: 'reviewerName' })
class ReviewerNameRule implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && reviewerNameProblem(value) === undefined;
  }

  defaultMessage(args: ValidationArguments): string {
    return typeof args.value === 'string'
      ? (reviewerNameProblem(args.value) ?? 'reviewerName is invalid')
      : 'reviewerName must be a string';
  }
}

export class SignInDto {
  @ApiProperty({
    description: 'An API key of the workspace, checked like x-api-key (never a revoked one)',
    example: 'svc_...',
    minLength: 1,
    maxLength: 512,
  })
  @IsString()
  @Length(1, 512)
  apiKey: string;

  @ApiProperty({
    description:
      'Who is signing in: decisions made in this session record it as `decidedBy`. Trimmed; ' +
      `1-${REVIEWER_NAME_MAX_LENGTH} characters, no control characters. Self-declared, like ` +
      '`decidedBy` in the API.',
    example: 'Ada Lovelace',
    minLength: 1,
    maxLength: REVIEWER_NAME_MAX_LENGTH,
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Validate(ReviewerNameRule)
  reviewerName: string;
}

export class SessionDto {
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty() workspaceName: string;
  @ApiProperty({ format: 'uuid', description: 'The API key the session holds' }) keyId: string;
  @ApiProperty() keyName: string;
  @ApiProperty({
    description:
      'The scopes of the key the session holds, in canonical order (README "Scopes"): the console ' +
      'offers only what they allow',
    enum: SCOPES,
    isArray: true,
  })
  scopes: Scope[];
  @ApiProperty({ description: 'Recorded as `decidedBy` of the decisions made in this session' })
  reviewerName: string;
  @ApiProperty({ format: 'date-time', description: 'When the session cookie stops being accepted' })
  expiresAt: string;
}

export class SignedOutDto {
  @ApiProperty({ type: 'boolean', enum: [true] }) signedOut: true;
}
