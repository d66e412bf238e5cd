// `npm run migration:run`: applies pending migrations to DATABASE_URL and exits.
import { runMigrations } from './migrations';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL must be set to run migrations');
    process.exit(1);
  }
  const applied = await runMigrations(url);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
