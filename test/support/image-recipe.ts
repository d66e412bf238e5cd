import { readFileSync } from 'node:fs';
import {
  DockerfileParser,
  type Copy,
  type Env,
  type From,
  type Healthcheck,
  type Instruction,
  type JSONInstruction,
} from 'dockerfile-ast';

/** One `FROM` of a Dockerfile and the instructions after it, in order. */
interface Stage {
  name: string | null;
  image: string;
  tag: string | null;
  instructions: Instruction[];
}

/**
 * What the Dockerfile makes of its runtime image, read from the Dockerfile itself: the production
 * install test (test/production-install.e2e-spec.ts) reproduces exactly this, and checks that it still
 * describes the Dockerfile, so that the two cannot drift apart silently.
 */
export interface RuntimeRecipe {
  /** The Node.js major version of each stage's base image, by stage name (`runtime` for the last). */
  nodeMajors: Record<string, number>;
  /** The runtime stage's working directory. */
  workdir: string;
  /** The runtime stage's `ENV`. */
  env: Record<string, string>;
  /** The stage that installs the production dependencies: the files it copies in and its command. */
  install: { stage: string; inputs: string[]; command: string[] };
  /** The runtime stage's `COPY` instructions (`from`: a stage, or null for the build context). */
  copies: Array<{ from: string | null; sources: string[]; dest: string }>;
  /** The runtime stage's `RUN` commands, each split at `&&` into its words. */
  commands: string[][];
  /** The runtime stage's `USER`. */
  user: string;
  /** The command of the runtime stage's `HEALTHCHECK`. */
  healthcheck: string[];
  /** The runtime stage's `CMD`. */
  cmd: string[];
}

/** Instructions of the runtime stage that change nothing a test running the service can reproduce. */
const NOT_REPRODUCED = new Set(['EXPOSE', 'LABEL']);

function stagesOf(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of DockerfileParser.parse(text).getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const from = instruction as From;
      stages.push({
        name: from.getBuildStage(),
        image: from.getImageName() ?? '',
        tag: from.getImageTag(),
        instructions: [],
      });
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push(instruction);
    } else {
      throw new Error(`the Dockerfile has ${instruction.getKeyword()} before its first FROM`);
    }
  }
  if (stages.length === 0) throw new Error('the Dockerfile has no FROM');
  return stages;
}

/** The words of a shell-form `RUN`, split into commands at `&&`. */
function commandsOf(instruction: Instruction): string[][] {
  const commands: string[][] = [[]];
  for (const word of instruction.getArguments().map((a) => a.getValue())) {
    if (word === '&&') commands.push([]);
    else commands[commands.length - 1].push(word);
  }
  return commands;
}

/** The Node.js major of an official `node:<tag>` image (`20-bookworm-slim` is 20). */
function nodeMajorOf(stage: Stage): number {
  const major = /^(\d+)(?:[.-]|$)/.exec(stage.tag ?? '');
  if (stage.image !== 'node' || !major) {
    throw new Error(
      `stage ${stage.name ?? '(unnamed)'} is based on ${stage.image}:${stage.tag ?? 'latest'}, not on a node:<major> image`,
    );
  }
  return Number(major[1]);
}

/** Reads the runtime recipe of `dockerfilePath`; anything the test could not reproduce is an error. */
export function readRuntimeRecipe(dockerfilePath: string): RuntimeRecipe {
  const stages = stagesOf(readFileSync(dockerfilePath, 'utf8'));
  const runtime = stages[stages.length - 1];
  const nodeMajors: Record<string, number> = {};
  for (const stage of stages) {
    nodeMajors[stage === runtime ? 'runtime' : (stage.name ?? '(unnamed)')] = nodeMajorOf(stage);
  }

  const recipe: Omit<RuntimeRecipe, 'install'> & { install?: RuntimeRecipe['install'] } = {
    nodeMajors,
    workdir: '',
    env: {},
    copies: [],
    commands: [],
    user: '',
    healthcheck: [],
    cmd: [],
  };
  for (const instruction of runtime.instructions) {
    const keyword = instruction.getKeyword();
    switch (keyword) {
      case 'ENV':
        for (const property of (instruction as Env).getProperties()) {
          recipe.env[property.getName()] = property.getUnescapedValue() ?? '';
        }
        break;
      case 'WORKDIR':
        recipe.workdir = instruction.getArgumentsContent() ?? '';
        break;
      case 'COPY': {
        const copy = instruction as Copy;
        const words = copy.getArguments().map((a) => a.getValue());
        const from = copy.getFromFlag()?.getValue() ?? null;
        recipe.copies.push({ from, sources: words.slice(0, -1), dest: words[words.length - 1] });
        break;
      }
      case 'RUN':
        recipe.commands.push(...commandsOf(instruction));
        break;
      case 'USER':
        recipe.user = instruction.getArgumentsContent() ?? '';
        break;
      case 'HEALTHCHECK': {
        // HEALTHCHECK [flags] CMD ["executable", ...]: the exec form is a JSON array.
        const content = (instruction as Healthcheck).getArgumentsContent() ?? '';
        const exec = /(?:^|\s)CMD\s+(\[.*\])\s*$/s.exec(content);
        if (!exec) throw new Error(`HEALTHCHECK is not in exec form: ${content}`);
        recipe.healthcheck = JSON.parse(exec[1]) as string[];
        break;
      }
      case 'CMD':
        recipe.cmd = (instruction as JSONInstruction).getJSONStrings().map((s) => s.getJSONValue());
        break;
      default:
        if (!NOT_REPRODUCED.has(keyword)) {
          throw new Error(
            `the runtime stage has ${keyword}, which test/support/production-install.ts does not reproduce: teach it`,
          );
        }
    }
  }

  // The production dependencies come from the stage whose node_modules the runtime stage copies.
  const modules = recipe.copies.find(
    (c) => c.from !== null && c.sources[0].endsWith('/node_modules'),
  );
  const installStage = stages.find((s) => s.name !== null && s.name === modules?.from);
  if (!installStage) throw new Error('the runtime stage copies node_modules from no stage');
  const inputs = installStage.instructions
    .filter((i): i is Copy => i.getKeyword() === 'COPY')
    .flatMap((c) =>
      c
        .getArguments()
        .map((a) => a.getValue())
        .slice(0, -1),
    );
  const install = installStage.instructions
    .filter((i) => i.getKeyword() === 'RUN')
    .flatMap(commandsOf)
    .find((command) => command[0] === 'npm' && command[1] === 'ci');
  if (!install) throw new Error(`stage ${installStage.name} runs no npm ci`);
  recipe.install = { stage: installStage.name ?? '', inputs, command: install };
  return recipe as RuntimeRecipe;
}
