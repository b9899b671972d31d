/**
 * The video pipeline in the synthesized stack: the render workflow's task functions (packaging,
 * memory, timeout and exactly the access their registry entries name), who may start the workflow,
 * the speech engine option, the catalog media custom resource, and a template without dependency
 * cycles.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogMediaVersion } from '../../lambdas/catalog/catalog-media.js';
import { GRANTS } from '../../lambdas/core/grants.js';
import {
  JOB_WORKFLOWS,
  TASK_FUNCTIONS,
  type TaskFunctionDefinition,
  type TaskFunctionName,
} from '../../lambdas/workflows/task-functions.js';
import { AREA_GRANTS } from '../../lib/access/function-access.js';
import { CATALOG_MEDIA_RESOURCE_TYPE, CATALOG_PUBLISHER_MODULE } from '../../lib/stack/catalog-publisher.js';
import {
  buildService,
  type CfnResourceJson,
  resourcesOfType,
  type SynthesizedService,
  type TemplateJson,
  templateJson,
} from './synth-helpers.js';

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

const VIDEO_RENDER = 'video-render';
const VIDEO_RENDER_ARN_VARIABLE = JOB_WORKFLOWS[VIDEO_RENDER]?.environmentVariable ?? '';

let service: SynthesizedService;
let root: TemplateJson;
let espeak: SynthesizedService;

beforeAll(() => {
  service = buildService({ validateTemplates: false });
  root = templateJson(service.stack);
  // The other side of the catalog options too: a publication nonce, and failures failing the deploy.
  espeak = buildService({
    context: {
      speechEngine: 'espeak',
      catalogPublicationNonce: 'again-1',
      catalogFailureFailsDeploy: 'true',
    },
    validateTemplates: false,
  });
});

function logicalId(of: SynthesizedService, construct: { node: { defaultChild?: unknown } }): string {
  return of.stack.getLogicalId(construct.node.defaultChild as never);
}

function propertiesOf(resource: CfnResourceJson | undefined): Record<string, unknown> {
  expect(resource?.Properties).toBeDefined();
  return resource?.Properties ?? {};
}

/**
 * One `action resource condition` line per thing a statement allows, so that the comparison does not
 * depend on how CDK merges statements (cdk.json's `minimizePolicies`).
 */
function grantsOf(statements: readonly Statement[]): string[] {
  const grants = new Set<string>();
  for (const statement of statements) {
    const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
    for (const action of [statement.Action].flat()) {
      for (const resource of resources) {
        grants.add(`${action} ${JSON.stringify(resource)} ${JSON.stringify(statement.Condition ?? null)}`);
      }
    }
  }
  return [...grants].sort();
}

function grants(actions: readonly string[], resource: unknown, condition: unknown = null): string[] {
  return actions.map((action) => `${action} ${JSON.stringify(resource)} ${JSON.stringify(condition)}`);
}

/** What a root-stack role's inline policies allow, without its log group and tracing grants. */
function roleGrants(template: TemplateJson, roleId: string): string[] {
  const statements = resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      (propertiesOf(policy).Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap(([, policy]) => (propertiesOf(policy).PolicyDocument as { Statement: Statement[] }).Statement);
  return grantsOf(statements).filter((grant) => !/^(logs|xray):/.test(grant));
}

function roleOfFunction(template: TemplateJson, functionId: string): string {
  const role = propertiesOf(template.Resources[functionId]).Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
}

function taskFunctionId(of: SynthesizedService, name: TaskFunctionName): string {
  const fn = of.stack.taskFunctions.functions[name];
  if (!fn) throw new Error(`No task function ${name}`);
  return logicalId(of, fn);
}

const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const customerKeys = {
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':*:key/*']],
};
const viaS3 = {
  StringEquals: {
    'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
  },
};

/** What each access kind of the video render's registry entries must grant, and nothing more. */
function expectedGrants(of: SynthesizedService) {
  const { table, mediaBucket, stackKey } = of.stack.data;
  const tableArn = getAtt(logicalId(of, table));
  const bucketId = logicalId(of, mediaBucket);
  const objects = (prefix: string) => ({ 'Fn::Join': ['', [getAtt(bucketId), `/${prefix}`]] });
  return {
    jobItems: grants(
      [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
      ],
      tableArn,
    ),
    jobMedia: [
      ...grants(['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], objects('workspaces/*')),
      ...grants(['s3:GetObject'], objects('catalog/*')),
      ...grants(['s3:ListBucket'], getAtt(bucketId), { StringLike: { 's3:prefix': ['workspaces/*'] } }),
      ...grants(['kms:GenerateDataKey', 'kms:Decrypt'], getAtt(logicalId(of, stackKey))),
      ...grants(['kms:DescribeKey'], customerKeys),
      ...grants(['kms:GenerateDataKey', 'kms:Decrypt'], customerKeys, viaS3),
    ],
    publishEvents: grants(['events:PutEvents'], getAtt(logicalId(of, of.stack.messaging.eventBus))),
    polly: grants(['polly:SynthesizeSpeech', 'polly:DescribeVoices'], '*'),
  };
}

const videoTasks = (Object.entries(TASK_FUNCTIONS) as [TaskFunctionName, TaskFunctionDefinition][]).filter(
  // The video render's steps (the video agent's, `VideoAgent…`, are another job's).
  ([name]) => name.startsWith('Video') && !name.startsWith('VideoAgent'),
);

describe('video render task functions', () => {
  it('exist for the whole workflow, and the workflow calls each of them', () => {
    expect(videoTasks.map(([name]) => name).sort()).toEqual(
      [
        'VideoAdmit',
        'VideoCompose',
        // Inside the Map state's item processor: substituted like every other task function.
        'VideoComposeChunk',
        'VideoFinalize',
        'VideoJoinChunks',
        'VideoPrepare',
        'VideoRecordFailure',
        'VideoSynthesizeSpeech',
      ].sort(),
    );
    const stateMachine = service.stack.workflows.stateMachines.get(VIDEO_RENDER);
    expect(stateMachine).toBeDefined();
    const substitutions = propertiesOf(root.Resources[logicalId(service, stateMachine as never)])
      .DefinitionSubstitutions as Record<string, unknown>;
    for (const [name] of videoTasks) {
      expect(substitutions[`TaskFunction_${name}`], name).toEqual(getAtt(taskFunctionId(service, name)));
    }
  });

  it('runs the compose steps (one pass or plan, each chunk, the join) as the media container image with room to render', () => {
    for (const [step, memory] of [
      ['Compose', 3008],
      ['ComposeChunk', 3008],
      ['JoinChunks', 1024],
    ] as const) {
      const compose = propertiesOf(root.Resources[taskFunctionId(service, `Video${step}`)]);
      expect(compose, step).toMatchObject({
        PackageType: 'Image',
        Architectures: ['arm64'],
        ImageConfig: { Command: [`videos/render-steps.${step}`] },
        Timeout: 900,
      });
      expect(compose.MemorySize, step).toBeGreaterThanOrEqual(memory);
      expect((compose.EphemeralStorage as { Size: number }).Size, step).toBeGreaterThanOrEqual(4096);
      expect(compose.Runtime, step).toBeUndefined();
    }
    // The Map state renders up to this many chunks of a video at once (the renderChunkConcurrency option).
    const { Variables } = propertiesOf(root.Resources[taskFunctionId(service, 'VideoCompose')])
      .Environment as {
      Variables: Record<string, string>;
    };
    expect(Variables.RENDER_CHUNK_CONCURRENCY).toBe('16');
    // Deployed, a chunk is 10 s (videoRenderChunkSeconds): each is a Lambda invocation of its own.
    expect(Variables.VIDEO_RENDER_CHUNK_SECONDS).toBe('10');
  });

  it('takes memory and timeout from the registry (256 MB and 30 s by default), zip unless it says otherwise', () => {
    for (const [name, definition] of videoTasks) {
      const fn = propertiesOf(root.Resources[taskFunctionId(service, name)]);
      expect(fn.MemorySize, name).toBe(definition.memorySize ?? 256);
      expect(fn.Timeout, name).toBe(definition.timeoutSeconds ?? 30);
      expect(fn.PackageType ?? 'Zip', name).toBe(definition.packaging === 'media-image' ? 'Image' : 'Zip');
    }
  });

  it('gives each role exactly the statements of its access kinds (Polly for speech)', () => {
    const expected = expectedGrants(service);
    for (const [name, definition] of videoTasks) {
      const wanted = definition.access.flatMap((access) => expected[access as keyof typeof expected] ?? []);
      if (name === 'VideoSynthesizeSpeech') wanted.push(...expected.polly);
      expect(roleGrants(root, roleOfFunction(root, taskFunctionId(service, name))), name).toEqual(
        [...new Set(wanted)].sort(),
      );
    }
    // Spelled out once, so a registry change cannot silently widen them.
    // Prepare may find a video ended by a crash and finish its ending (work files, event).
    expect(roleGrants(root, roleOfFunction(root, taskFunctionId(service, 'VideoPrepare')))).toEqual(
      [...expected.jobItems, ...expected.jobMedia, ...expected.publishEvents].sort(),
    );
    expect(roleGrants(root, roleOfFunction(root, taskFunctionId(service, 'VideoFinalize')))).toEqual(
      [...expected.jobItems, ...expected.jobMedia, ...expected.publishEvents].sort(),
    );
  });

  it('gives no task function Amazon Polly with the eSpeak engine', () => {
    const espeakRoot = templateJson(espeak.stack);
    for (const [name] of videoTasks) {
      const taskGrants = roleGrants(espeakRoot, roleOfFunction(espeakRoot, taskFunctionId(espeak, name)));
      expect(
        taskGrants.filter((grant) => grant.startsWith('polly:')),
        name,
      ).toEqual([]);
    }
  });

  it('sets SPEECH_ENGINE from the stack option on every task function', () => {
    for (const [of, engine] of [
      [service, 'polly'],
      [espeak, 'espeak'],
    ] as const) {
      for (const [name] of videoTasks) {
        const fn = propertiesOf(templateJson(of.stack).Resources[taskFunctionId(of, name)]);
        expect((fn.Environment as { Variables: Record<string, unknown> }).Variables.SPEECH_ENGINE, name).toBe(
          engine,
        );
      }
    }
  });
});

describe('starting the video render workflow', () => {
  const videoRenderRef = () => ({
    Ref: logicalId(service, service.stack.workflows.stateMachines.get(VIDEO_RENDER) as never),
  });

  /** What the root stack passes for a nested stack's parameter. */
  function parameterValue(area: string, parameter: string): unknown {
    const areaStack = service.stack.api.areaStacks.get(area as never);
    if (!areaStack?.nestedStackResource) throw new Error(`no area stack ${area}`);
    const resource = root.Resources[service.stack.getLogicalId(areaStack.nestedStackResource as never)];
    return (propertiesOf(resource).Parameters as Record<string, unknown>)[parameter];
  }

  /** Every `states:*` grant of a set of root-stack managed policies. */
  function stateGrants(policyRefs: readonly unknown[]): string[] {
    return policyRefs.flatMap((ref) => {
      const policy = root.Resources[(ref as { Ref: string }).Ref];
      expect(policy?.Type).toBe('AWS::IAM::ManagedPolicy');
      const { Statement } = propertiesOf(policy).PolicyDocument as { Statement: Statement[] };
      return grantsOf(Statement).filter((grant) => grant.startsWith('states:'));
    });
  }

  /**
   * StartExecution of the job workflows (`JOB_WORKFLOWS`: the video render, the voice clone, ...), one
   * shared capability policy: never an admin workflow such as the encryption setup.
   */
  const jobWorkflowGrants = () =>
    Object.keys(JOB_WORKFLOWS)
      .map((name) => service.stack.workflows.stateMachines.get(name))
      .filter((stateMachine) => stateMachine !== undefined)
      .flatMap((stateMachine) => grants(['states:StartExecution'], { Ref: logicalId(service, stateMachine) }))
      .sort();

  it('gives the videos API functions the ARN and StartExecution on the job workflows only', () => {
    const videos = service.stack.api.areaStacks.get('videos');
    if (!videos) throw new Error('no videos area stack');
    const template = templateJson(videos);
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(0);
    for (const [id, fn] of functions) {
      const { Variables } = propertiesOf(fn).Environment as { Variables: Record<string, unknown> };
      const value = Variables[VIDEO_RENDER_ARN_VARIABLE] as { Ref: string } | undefined;
      expect(value, id).toBeDefined();
      expect(parameterValue('videos', value?.Ref ?? ''), id).toEqual(videoRenderRef());
      const role = template.Resources[roleOfFunction(template, id)];
      const policyRefs = (propertiesOf(role).ManagedPolicyArns as { Ref: string }[]).map((ref) =>
        parameterValue('videos', ref.Ref),
      );
      expect(stateGrants(policyRefs).sort(), id).toEqual(jobWorkflowGrants());
      expect(stateGrants(policyRefs), id).toEqual(
        expect.arrayContaining(grants(['states:StartExecution'], videoRenderRef())),
      );
    }
  });

  it('gives the batch worker (which creates batch videos) the same, and its other capabilities', () => {
    const workerId = logicalId(service, service.stack.batchWorker.function);
    const worker = propertiesOf(root.Resources[workerId]);
    expect(
      (worker.Environment as { Variables: Record<string, unknown> }).Variables[VIDEO_RENDER_ARN_VARIABLE],
    ).toEqual(videoRenderRef());
    const role = propertiesOf(root.Resources[roleOfFunction(root, workerId)]);
    const policyRefs = role.ManagedPolicyArns as { Ref: string }[];
    expect(stateGrants(policyRefs).sort()).toEqual(jobWorkflowGrants());
    expect(policyRefs.map((ref) => ref.Ref.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'AccessPoliciestableItems',
      'AccessPoliciesmedia',
      'AccessPoliciespublishEvents',
      'AccessPoliciesstartWorkflows',
    ]);
  });

  it('passes the ARN to exactly the areas that may start workflows, and never to task functions', () => {
    let starting = 0;
    for (const [area, areaStack] of service.stack.api.areaStacks) {
      const canStart = AREA_GRANTS[area].includes(GRANTS.startWorkflows);
      if (canStart) starting += 1;
      for (const [id, fn] of resourcesOfType(templateJson(areaStack), 'AWS::Lambda::Function')) {
        const { Variables } = propertiesOf(fn).Environment as { Variables: Record<string, unknown> };
        expect(VIDEO_RENDER_ARN_VARIABLE in Variables, `${area} ${id}`).toBe(canStart);
      }
    }
    expect(starting).toBeGreaterThan(0);
    for (const [name] of videoTasks) {
      const fn = propertiesOf(root.Resources[taskFunctionId(service, name)]);
      expect(JSON.stringify(fn.Environment), name).not.toContain(VIDEO_RENDER_ARN_VARIABLE);
    }
  });
});

describe('speech engine option', () => {
  const speechPolicies = (of: SynthesizedService) =>
    resourcesOfType(templateJson(of.stack), 'AWS::IAM::ManagedPolicy').filter(([, policy]) =>
      JSON.stringify(policy.Properties?.PolicyDocument).includes('polly:'),
    );

  it('grants the voices API functions Amazon Polly with polly (the default), nothing with espeak', () => {
    const [[policyId, policy] = []] = speechPolicies(service);
    expect(speechPolicies(service)).toHaveLength(1);
    const { Statement } = propertiesOf(policy).PolicyDocument as { Statement: Statement[] };
    expect(grantsOf(Statement)).toEqual(expectedGrants(service).polly.sort());
    const voices = service.stack.api.areaStacks.get('voices');
    if (!voices?.nestedStackResource) throw new Error('no voices area stack');
    const parameters = propertiesOf(
      root.Resources[service.stack.getLogicalId(voices.nestedStackResource as never)],
    ).Parameters as Record<string, unknown>;
    const roles = resourcesOfType(templateJson(voices), 'AWS::IAM::Role');
    for (const [, role] of roles) {
      const refs = (propertiesOf(role).ManagedPolicyArns as { Ref: string }[]).map(
        (ref) => parameters[ref.Ref],
      );
      expect(refs).toContainEqual({ Ref: policyId });
    }
    expect(speechPolicies(espeak)).toEqual([]);
  });
});

describe('catalog media custom resource', () => {
  function catalogResource(of: SynthesizedService) {
    const found = resourcesOfType(templateJson(of.stack), CATALOG_MEDIA_RESOURCE_TYPE);
    expect(found).toHaveLength(1);
    return found[0]?.[1];
  }

  it("is served by the media image's publisher through the provider framework", () => {
    const resource = propertiesOf(catalogResource(service));
    const frameworkId = (resource.ServiceToken as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const framework = propertiesOf(root.Resources[frameworkId]);
    const publisherId = logicalId(service, service.stack.catalogPublisher.function);
    expect((framework.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      USER_ON_EVENT_FUNCTION_ARN: getAtt(publisherId),
    });
    expect(propertiesOf(root.Resources[publisherId])).toMatchObject({
      PackageType: 'Image',
      ImageConfig: { Command: [`${CATALOG_PUBLISHER_MODULE}.handler`] },
    });
    // The same image as the compose step: one build serves both.
    const imageOf = (id: string) => JSON.stringify(propertiesOf(root.Resources[id]).Code);
    expect(imageOf(publisherId)).toBe(imageOf(taskFunctionId(service, 'VideoCompose')));
  });

  it("republishes exactly when the catalog of the deployment's engine changes", () => {
    expect(propertiesOf(catalogResource(service)).CatalogVersion).toBe(catalogMediaVersion('polly'));
    expect(propertiesOf(catalogResource(espeak)).CatalogVersion).toBe(catalogMediaVersion('espeak'));
    expect(catalogMediaVersion('polly')).not.toBe(catalogMediaVersion('espeak'));
  });

  it('publishes again for a new catalogPublicationNonce, without a code change', () => {
    expect(propertiesOf(catalogResource(service))).not.toHaveProperty('PublicationNonce');
    expect(propertiesOf(catalogResource(espeak)).PublicationNonce).toBe('again-1');
  });

  it("succeeds a failed publication unless asked, and outputs the publication's status", () => {
    expect(propertiesOf(catalogResource(service)).FailDeployOnError).toBe('false');
    expect(propertiesOf(catalogResource(espeak)).FailDeployOnError).toBe('true');
    const outputs = Template.fromStack(service.stack).findOutputs('CatalogPublication');
    const resourceId = resourcesOfType(root, CATALOG_MEDIA_RESOURCE_TYPE)[0]?.[0];
    expect(outputs.CatalogPublication?.Value).toEqual({ 'Fn::GetAtt': [resourceId, 'Status'] });
  });

  it('lets the publisher write catalog/ with the stack key, and speak with Polly only when it is the engine', () => {
    const bucketId = logicalId(service, service.stack.data.mediaBucket);
    const catalog = { 'Fn::Join': ['', [getAtt(bucketId), '/catalog/*']] };
    const base = [
      ...grants(['s3:GetObject', 's3:PutObject'], catalog),
      ...grants(['s3:ListBucket'], getAtt(bucketId)),
      ...grants(
        ['kms:GenerateDataKey', 'kms:Decrypt'],
        getAtt(logicalId(service, service.stack.data.stackKey)),
      ),
    ];
    const publisherRole = (of: SynthesizedService) =>
      roleGrants(
        templateJson(of.stack),
        roleOfFunction(templateJson(of.stack), logicalId(of, of.stack.catalogPublisher.function)),
      );
    expect(publisherRole(service)).toEqual([...base, ...expectedGrants(service).polly].sort());
    expect(publisherRole(espeak)).toEqual(base.sort());
  });
});

describe('dependencies', () => {
  it('has no dependency cycle in the root template (task functions never wait for a state machine)', () => {
    const edges = new Map<string, Set<string>>();
    const collect = (value: unknown, into: Set<string>): void => {
      if (Array.isArray(value)) for (const item of value) collect(item, into);
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key === 'Ref' && typeof inner === 'string') into.add(inner);
          else if (key === 'Fn::GetAtt' && Array.isArray(inner)) into.add(String(inner[0]));
          else if (key === 'Fn::Sub' && typeof inner === 'string') {
            for (const [, name] of inner.matchAll(/\$\{([A-Za-z0-9]+)/g)) into.add(name ?? '');
          } else collect(inner, into);
        }
      }
    };
    for (const [id, resource] of Object.entries(root.Resources)) {
      const targets = new Set<string>(resource.DependsOn ?? []);
      collect(resource.Properties, targets);
      edges.set(id, new Set([...targets].filter((target) => target in root.Resources)));
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (id: string, trail: string[]): void => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'visiting') throw new Error(`Dependency cycle: ${[...trail, id].join(' → ')}`);
      state.set(id, 'visiting');
      for (const next of edges.get(id) ?? []) visit(next, [...trail, id]);
      state.set(id, 'done');
    };
    for (const id of edges.keys()) visit(id, []);

    // And the reason it matters: no task function may reach a state machine.
    const stateMachines = new Set(
      resourcesOfType(root, 'AWS::StepFunctions::StateMachine').map(([id]) => id),
    );
    const reaches = (from: string, seen = new Set<string>()): boolean => {
      if (stateMachines.has(from)) return true;
      if (seen.has(from)) return false;
      seen.add(from);
      return [...(edges.get(from) ?? [])].some((next) => reaches(next, seen));
    };
    for (const [name] of videoTasks) expect(reaches(taskFunctionId(service, name)), name).toBe(false);
    // The walk follows references: the state machine does reach its task functions.
    const stateMachineId = logicalId(
      service,
      service.stack.workflows.stateMachines.get(VIDEO_RENDER) as never,
    );
    expect(edges.get(stateMachineId)).toContain(taskFunctionId(service, 'VideoCompose'));
  });
});
