import { ApiKeyEntity } from '../api-keys/api-key.entity';

/** Every TypeORM entity of the service; the schema itself is owned by migrations/. */
export const ENTITIES = [ApiKeyEntity];
