import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './errors';

/** An error shaped as pg's DatabaseError (what PostgreSQL sent). */
function pgError(code: string, severity = 'ERROR', message = 'from the server'): Error {
  return Object.assign(new Error(message), { code, severity });
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });
}

const wrapped = (driverError: Error): QueryFailedError =>
  new QueryFailedError('SELECT 1', [], driverError);

describe('isDatabaseUnavailable', () => {
  it.each<[string, unknown]>([
    ['a refused connection', socketError('ECONNREFUSED')],
    ['a reset connection', socketError('ECONNRESET')],
    ['a broken pipe', socketError('EPIPE')],
    ['an unreachable host', socketError('EHOSTUNREACH')],
    ['an unknown host name', socketError('ENOTFOUND')],
    ['a DNS failure', socketError('EAI_AGAIN')],
    [
      'a refused connection to every address of a name',
      Object.assign(new AggregateError([socketError('ECONNREFUSED')], ''), {
        code: 'ECONNREFUSED',
      }),
    ],
    ['an AggregateError without its own code', new AggregateError([socketError('ECONNREFUSED')])],
    ['a session ended by an administrator (57P01)', pgError('57P01', 'FATAL')],
    ['a crash shutdown (57P02)', pgError('57P02', 'FATAL')],
    ['a server starting up (57P03)', pgError('57P03', 'FATAL')],
    ['a connection exception (08006)', pgError('08006')],
    ['a connection that never established (08001)', pgError('08001')],
    ['a protocol violation (08P01)', pgError('08P01')],
    ['too many connections (53300)', pgError('53300', 'FATAL')],
    ['a database that does not exist any more (3D000)', pgError('3D000', 'FATAL')],
    ['a refused login (28P01)', pgError('28P01', 'FATAL')],
    ['a database closed to connections (55000, FATAL)', pgError('55000', 'FATAL')],
    ['a server panic', pgError('XX000', 'PANIC')],
    ['a connection that dropped', new Error('Connection terminated unexpectedly')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a pool that had no connection in time', new Error('timeout exceeded when trying to connect')],
    [
      'a client whose connection broke',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'TypeORM around a dropped connection',
      wrapped(new Error('Connection terminated unexpectedly')),
    ],
    ['TypeORM around an admin shutdown', wrapped(pgError('57P01', 'FATAL'))],
    [
      'an error caused by a refused connection',
      new Error('could not start the transaction', { cause: socketError('ECONNREFUSED') }),
    ],
  ])('recognises %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a unique violation', pgError('23505')],
    ['a missing table', pgError('42P01')],
    ['a syntax error', pgError('42601')],
    ['an invalid input value', pgError('22P02')],
    ['a serialization failure', pgError('40001')],
    ['a deadlock', pgError('40P01')],
    ['a statement timeout', pgError('57014')],
    ['a lock that was not available', pgError('55P03')],
    ['a state error that keeps the session (55000, ERROR)', pgError('55000')],
    ['TypeORM around a failed statement', wrapped(pgError('23503'))],
    [
      'a plain programming error',
      new TypeError("Cannot read properties of undefined (reading 'id')"),
    ],
    ['a message that merely mentions a connection', new Error('Connection terminated: by user')],
    ['an error caused by a constraint', new Error('insert failed', { cause: pgError('23514') })],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
    ['undefined', undefined],
  ])('does not mistake %s for an outage', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('stops on an error that causes itself', () => {
    const err = new Error('loop') as Error & { cause?: unknown };
    err.cause = err;
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
