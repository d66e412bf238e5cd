import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { WorkspaceEntity } from '../workspaces/workspace.entity';

/** Every TypeORM entity of the service; the schema itself is owned by migrations/. */
export const ENTITIES = [WorkspaceEntity, ApiKeyEntity];
