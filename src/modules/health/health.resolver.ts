import { Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { pingDatabase } from '../../kit/db/database.ping.js';

@ObjectType({ simpleResolvers: true, description: 'Whether the service and its database answer.' })
export class Health {
  @Field({ description: '"ok" when the database answers, else "degraded".' })
  status!: string;

  @Field()
  database!: boolean;

  @Field({ description: 'Service version (package.json).' })
  version!: string;
}

const SERVICE_VERSION = process.env.npm_package_version ?? '0.1.0';

@Resolver()
export class HealthResolver {
  @Query(() => Health)
  async health(@Ctx() { em }: GraphQLContext): Promise<Health> {
    const database = await pingDatabase(em);
    return { status: database ? 'ok' : 'degraded', database, version: SERVICE_VERSION };
  }
}
