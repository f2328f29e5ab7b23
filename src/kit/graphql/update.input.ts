import { Field, getMetadataStorage, InputType, type ClassType } from 'type-graphql';

export interface UpdateInputOptions<T, K extends keyof T> {
  /** The fields fixed at creation, left out of the update. */
  omit?: readonly K[];
  /** The update's own descriptions. */
  descriptions?: Partial<Record<Exclude<keyof T, K>, string>>;
}

/**
 * `<name>`: the fields of the create input `create` (TypeGraphQL's field metadata), every one optional, since an
 * absent field stays as it is. No description carries over: the create's speak of defaults, which an update has not.
 */
export function updateInputOf<T extends object, K extends keyof T = never>(
  name: string,
  create: ClassType<T>,
  { omit = [], descriptions = {} }: UpdateInputOptions<T, K> = {},
): ClassType<Partial<Omit<T, K>>> {
  @InputType(name)
  class Update {}
  // The create input's own fields and those it inherits (NamedInput's), each once.
  const inherited = (target: object) => target === create || Object.prototype.isPrototypeOf.call(target, create);
  const fields = getMetadataStorage().fields.filter((field) => inherited(field.target) && !omit.includes(field.name as K));
  for (const field of fields) {
    const description = descriptions[field.name as Exclude<keyof T, K>];
    // getType() is what sets typeOptions.arrayDepth (`() => [String]`), so it is called first.
    Field(() => inArrays(field.getType() as object, field.typeOptions.arrayDepth ?? 0), { nullable: true, description })(Update.prototype, field.name);
  }
  return Update;
}

const inArrays = (type: object, depth: number): object => (depth ? inArrays([type], depth - 1) : type);
