// oidc-provider ships no types; the tests use its constructor, `callback()` and plain option objects.
declare module "oidc-provider" {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: unknown, res: unknown) => void;
  }
}
