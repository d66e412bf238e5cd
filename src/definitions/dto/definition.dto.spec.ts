import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import { documentStepTypes } from './definition.dto';

describe('documentStepTypes', () => {
  it('describes the steps field with the registered types, second as a decorator would put it', () => {
    const steps = { type: 'array', example: [{ type: 'task' }], items: { type: 'object' } };
    const document = {
      components: { schemas: { CreateDefinitionDto: { properties: { steps } } } },
    } as unknown as OpenAPIObject;
    documentStepTypes(document, ['task', 'wait', 'notify']);
    const schema = document.components!.schemas!.CreateDefinitionDto as SchemaObject;
    const described = schema.properties!.steps as SchemaObject;
    expect(Object.keys(described)).toEqual(['type', 'description', 'example', 'items']);
    expect(described.description).toMatch(
      /^Ordered steps; each has type \(task, wait, notify\), a unique name and the fields of its type/,
    );
  });
});
