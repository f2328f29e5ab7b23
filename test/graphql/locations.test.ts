import type { TestServer } from '../helpers/server.js';
import { expectOthersNotFound, sleep, useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;

useTwoTenants((t) => ({ server, a, b, busA, busB } = t));

const L = 'id object name metadata createdAt updatedAt business { id }';
const create = (input: object, c = a, bus = busA) =>
  c
    .data(`mutation($b: ID!, $i: CreateLocationInput!) { createLocation(business: $b, input: $i) { ${L} } }`, { b: bus, i: input })
    .then((d) => d.createLocation);

describe('locations', () => {
  it('create, read, list with filters and sort, update, delete', async () => {
    const one = await create({ name: 'Gulberg', metadata: { branchCode: 'LHR-01' } });
    expect(one).toMatchObject({ object: 'location', name: 'Gulberg', metadata: { branchCode: 'LHR-01' }, business: { id: busA } });
    await sleep(3);
    const two = await create({ name: 'Blue Area' });
    const read = await a.data(`query($b: ID!, $id: ID!) { location(business: $b, id: $id) { ${L} } }`, { b: busA, id: one.id });
    expect(read.location).toEqual(one);
    const lst = (vars: object) =>
      a
        .data(`query($b: ID!, $w: LocationWhere, $o: [LocationOrderBy!]) { locations(business: $b, where: $w, orderBy: $o) { data { id } total } }`, {
          b: busA,
          ...vars,
        })
        .then((d) => d.locations);
    expect((await lst({})).data.map((l: any) => l.id)).toEqual([two.id, one.id]);
    expect((await lst({ o: [{ field: 'name', order: 'asc' }] })).data.map((l: any) => l.id)).toEqual([two.id, one.id]);
    expect((await lst({ w: { name: { contains: 'berg' } } })).data.map((l: any) => l.id)).toEqual([one.id]);
    expect((await lst({ w: { createdAt: { gt: one.createdAt } } })).data.map((l: any) => l.id)).toEqual([two.id]);
    const up = await a.data(`mutation($b: ID!, $id: ID!) { updateLocation(business: $b, id: $id, input: {metadata: {branchCode: "ISB-02"}}) { ${L} } }`, {
      b: busA,
      id: two.id,
    });
    expect(up.updateLocation).toMatchObject({ name: 'Blue Area', metadata: { branchCode: 'ISB-02' } });
    expect((await a.data(`mutation($b: ID!, $id: ID!) { deleteLocation(business: $b, id: $id) }`, { b: busA, id: two.id })).deleteLocation).toBe(two.id);
    expect((await lst({})).total).toBe(1);
    const ev = await server.orm.em.fork().getConnection().execute(`select type from event where data->'object'->>'id' = ? order by id`, [two.id]);
    expect(ev.map((e: any) => e.type)).toEqual(['location.created', 'location.updated', 'location.deleted']);
  });

  it('validates name and string-to-string metadata', async () => {
    const err = await a.error(`mutation($b: ID!, $m: JSONObject) { createLocation(business: $b, input: {name: "", metadata: $m}) { id } }`, {
      b: busA,
      m: { n: 1, 'a.b': 'x' },
    });
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.details!.map((d) => d.field).sort()).toEqual(['metadata.a.b', 'metadata.n', 'name']);
  });

  it("treats another business's location as NOT_FOUND", async () => {
    const theirs = await create({ name: 'Theirs' }, b, busB);
    await expectOthersNotFound(a, busA, theirs.id, 'location');
  });
});
