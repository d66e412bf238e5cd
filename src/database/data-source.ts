// Data source for the TypeORM CLI (`npm run migration:generate`).
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './migrations';
import { ENTITIES } from './entities';

export default new DataSource({
  ...dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'),
  entities: ENTITIES,
});
