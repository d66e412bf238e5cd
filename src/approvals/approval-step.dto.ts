import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Nested, UniqueItems } from '../common/validation';
import { BaseStepDto, MAX_DUE_IN_MS } from '../steps/step-dtos';

/** Assignees one list may name, and so the largest quorum. */
export const MAX_ASSIGNEES = 50;

/** What becomes of a request still undecided at its (last) timeout. */
export const ON_TIMEOUT = ['reject', 'approve', 'fail'] as const;
export type OnTimeout = (typeof ON_TIMEOUT)[number];

/** Names or groups, 1-200 characters each, 1-50 of them, no duplicates. */
function Assignees(): PropertyDecorator {
  const decorators = [
    IsArray({ message: '$property must be an array of names or groups' }),
    ArrayMinSize(1, { message: '$property must name at least one assignee' }),
    ArrayMaxSize(MAX_ASSIGNEES, {
      message: `$property must name at most ${MAX_ASSIGNEES} assignees`,
    }),
    UniqueItems({ message: '$property must not name an assignee twice' }),
    IsString({ each: true, message: '$property must hold strings' }),
    Length(1, 200, { each: true, message: 'each of $property must be 1-200 characters' }),
  ];
  return (target: object, property: string | symbol) => {
    for (const decorate of decorators) decorate(target, property);
  };
}

/** The second stage of a request: new assignees and, optionally, a second timeout. */
export class ApprovalEscalationDto {
  @Assignees() assignees: string[];
  /** Checked against APPROVAL_MAX_TIMEOUT_MS by the step type's check, like the step's own. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_DUE_IN_MS) timeoutMs?: number;
}

export class ApprovalStepDto extends BaseStepDto {
  @IsString() @Length(1, 200) contentKey: string;
  @IsOptional() @IsString() @MaxLength(10_000) prompt?: string;
  @IsOptional() @IsString() @Length(1, 100) regenerateFrom?: string;
  @IsOptional() @Assignees() assignees?: string[];
  @IsOptional() @IsInt() @Min(1) @Max(MAX_ASSIGNEES) requiredApprovals?: number;
  /**
   * The request's timeout: a due time in PostgreSQL (like an external event's), not a timer, so it
   * replaces the base class's rules; APPROVAL_MAX_TIMEOUT_MS is checked by the step type's check.
   */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_DUE_IN_MS) override timeoutMs?: number = undefined;
  @IsOptional()
  @IsIn(ON_TIMEOUT, { message: `onTimeout must be one of ${ON_TIMEOUT.join(', ')}` })
  onTimeout?: OnTimeout;
  @IsOptional() @IsObject() @Nested(() => ApprovalEscalationDto) escalateTo?: ApprovalEscalationDto;
}
