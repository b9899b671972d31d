/**
 * Matches a request path against the route table the way API Gateway does: literal segments win
 * over `{parameters}`, so `/v3/videos/statuses` is not taken for `/v3/videos/{video_id}`.
 */
import type { HttpMethod, RouteDefinition } from '../../lambdas/api/pipeline/route-types.js';

export interface ResourceMatch {
  /** The resource template, e.g. `/v3/folders/{folder_id}`. */
  resource: string;
  pathParameters: Record<string, string>;
  /** The routes of that resource by method. */
  methods: Map<HttpMethod, RouteDefinition>;
}

interface Resource {
  template: string;
  segments: string[];
  methods: Map<HttpMethod, RouteDefinition>;
}

export class RouteMatcher {
  private readonly resources: Resource[];

  constructor(routes: readonly RouteDefinition[]) {
    const byTemplate = new Map<string, Resource>();
    for (const route of routes) {
      let resource = byTemplate.get(route.path);
      if (!resource) {
        resource = { template: route.path, segments: route.path.split('/').slice(1), methods: new Map() };
        byTemplate.set(route.path, resource);
      }
      resource.methods.set(route.method, route);
    }
    this.resources = [...byTemplate.values()];
  }

  match(path: string): ResourceMatch | undefined {
    const segments = path.split('/').slice(1);
    let best: { resource: Resource; parameters: Record<string, string>; score: string } | undefined;
    for (const resource of this.resources) {
      if (resource.segments.length !== segments.length) continue;
      const parameters: Record<string, string> = {};
      let score = '';
      let matches = true;
      for (const [index, expected] of resource.segments.entries()) {
        const actual = segments[index] ?? '';
        const parameter = expected.match(/^\{(.+)\}$/)?.[1];
        if (parameter) {
          if (actual === '') {
            matches = false;
            break;
          }
          const decoded = safeDecode(actual);
          if (decoded === undefined) {
            matches = false;
            break;
          }
          parameters[parameter] = decoded;
          score += '0';
        } else if (expected === actual) {
          score += '1';
        } else {
          matches = false;
          break;
        }
      }
      // Literal segments earlier in the path win, as in API Gateway.
      if (matches && (!best || score > best.score)) best = { resource, parameters, score };
    }
    return (
      best && {
        resource: best.resource.template,
        pathParameters: best.parameters,
        methods: best.resource.methods,
      }
    );
  }
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
