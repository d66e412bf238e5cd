// Data source for the TypeORM CLI (`npm run migration:generate`). It lists no entities: the service
// reaches its tables with plain SQL and its migrations are written by hand.
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './migrations';

export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'),
);
