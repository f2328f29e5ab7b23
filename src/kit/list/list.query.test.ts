import 'reflect-metadata';
import { AppError } from '../../shared/errors.js';
import { checkPaging, orderByToSql, whereToConditions } from './list.query.js';
import { SortOrder } from './list.args.js';

describe('whereToConditions', () => {
  it('gives each operator its SQL comparison; several on one field AND together', () => {
    const t = new Date(1_700_000_000_000);
    expect(
      whereToConditions({
        name: { eq: 'a', ne: 'b', gt: 'c', gte: 'd', lt: 'e', lte: 'f', in: ['g'] },
        createdAt: { gte: t, lt: t },
        status: null,
      }),
    ).toEqual([
      { property: 'name', op: '=', value: 'a' },
      { property: 'name', op: '<>', value: 'b' },
      { property: 'name', op: '>', value: 'c' },
      { property: 'name', op: '>=', value: 'd' },
      { property: 'name', op: '<', value: 'e' },
      { property: 'name', op: '<=', value: 'f' },
      { property: 'name', op: 'in', value: ['g'] },
      { property: 'createdAt', op: '>=', value: t },
      { property: 'createdAt', op: '<', value: t },
    ]);
  });

  it('makes contains a case-insensitive substring match with LIKE wildcards escaped', () => {
    expect(whereToConditions({ name: { contains: '50%_off\\' } })).toEqual([{ property: 'name', op: 'ilike', value: '%50\\%\\_off\\\\%' }]);
  });

  it('renames public fields to entity properties', () => {
    expect(whereToConditions({ itemId: { eq: 'P1' } }, { itemId: 'externalItemId' })).toEqual([{ property: 'externalItemId', op: '=', value: 'P1' }]);
  });

  it('skips empty conditions and caps `in` lists', () => {
    expect(whereToConditions({ name: {} })).toEqual([]);
    expect(() => whereToConditions({ id: { in: Array.from({ length: 101 }, (_, i) => `x${i}`) } })).toThrow(AppError);
  });
});

describe('orderByToSql', () => {
  it('defaults to createdAt desc, id desc', () => {
    expect(orderByToSql(undefined)).toEqual([{ createdAt: 'desc' }, { id: 'desc' }]);
    expect(orderByToSql([])).toEqual([{ createdAt: 'desc' }, { id: 'desc' }]);
  });
  it('breaks ties by id in the direction of the last sort, and keeps the first of repeated fields', () => {
    expect(
      orderByToSql([
        { field: 'status', order: SortOrder.asc },
        { field: 'name', order: SortOrder.desc },
        { field: 'status', order: SortOrder.desc },
      ]),
    ).toEqual([{ status: 'asc' }, { name: 'desc' }, { id: 'desc' }]);
    expect(orderByToSql([{ field: 'id', order: SortOrder.asc }])).toEqual([{ id: 'asc' }]);
  });
  it('uses a resource default and column renames', () => {
    expect(orderByToSql(null, {}, [{ field: 'position', order: SortOrder.asc }])).toEqual([{ position: 'asc' }, { id: 'asc' }]);
    expect(orderByToSql([{ field: 'itemId', order: SortOrder.asc }], { itemId: 'externalItemId' })).toEqual([{ externalItemId: 'asc' }, { id: 'asc' }]);
  });
});

describe('checkPaging', () => {
  it('accepts page from 0 and pageSize 1 to 100', () => {
    expect(() => checkPaging(0, 1)).not.toThrow();
    expect(() => checkPaging(7, 100)).not.toThrow();
  });
  it.each([
    [-1, 20, 'page'],
    [0, 0, 'pageSize'],
    [0, 101, 'pageSize'],
    [1.5, 20, 'page'],
  ])('refuses page %d pageSize %d', (page, pageSize, field) => {
    try {
      checkPaging(page, pageSize);
      throw new Error('accepted');
    } catch (err) {
      expect((err as AppError).details).toEqual([{ field, message: expect.any(String) }]);
    }
  });
});
