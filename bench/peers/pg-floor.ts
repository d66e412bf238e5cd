/**
 * The database floor of scenario 4's open loop: bare `node:http` and `pg` (no framework, no
 * authentication, no validation) answering `GET /runs/:id` with that run's row, read by primary key
 * in one round trip and sent as JSON: what answering from PostgreSQL costs on this machine with
 * nothing else in the path, read beside GET one run at the same offered rate. Connects to the
 * database in argv[3] with a pool of 10, listens on 127.0.0.1 at the port in argv[2], prints
 * `LISTENING` once it accepts connections; stops on SIGTERM.
 */
import http from 'node:http';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.argv[3], max: 10 });
// An idle connection the server ends (the bench dropping its database) must not crash the floor.
pool.on('error', () => undefined);

const server = http.createServer((req, res) => {
  const id = /^\/runs\/([0-9a-f-]{36})$/.exec(req.url ?? '')?.[1];
  if (!id) {
    res.writeHead(404).end();
    return;
  }
  pool.query('SELECT to_jsonb(r) AS run FROM workflow_runs r WHERE id = $1', [id]).then(
    ({ rows }) => {
      res.writeHead(rows[0] ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: rows[0]?.run ?? null }));
    },
    (err: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message);
    },
  );
});

server.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('LISTENING\n'));
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
});
