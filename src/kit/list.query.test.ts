import 'reflect-metadata';
import { AppError } from '../shared/errors.js';
import { checkPaging, orderByToSql, whereToFilter } from './list.query.js';
import { SortOrder } from './list.args.js';

describe('whereToFilter', () => {
  it('maps each operator; several on one field AND together', () => {
    const t = new Date(1_700_000_000_000);
    expect(
      whereToFilter({
        name: { eq: 'a', ne: 'b', gt: 'c', gte: 'd', lt: 'e', lte: 'f', in: ['g'] },
        createdAt: { gte: t, lt: t },
        status: null,
      }),
    ).toEqual({
      name: { $eq: 'a', $ne: 'b', $gt: 'c', $gte: 'd', $lt: 'e', $lte: 'f', $in: ['g'] },
      createdAt: { $gte: t, $lt: t },
    });
  });

  it('makes contains a case-insensitive substring match with LIKE wildcards escaped', () => {
    expect(whereToFilter({ name: { contains: '50%_off\\' } })).toEqual({ name: { $ilike: '%50\\%\\_off\\\\%' } });
  });

  it('renames public fields to entity properties', () => {
    expect(whereToFilter({ itemId: { eq: 'P1' } }, { itemId: 'externalItemId' })).toEqual({ externalItemId: { $eq: 'P1' } });
  });

  it('skips empty conditions and caps `in` lists', () => {
    expect(whereToFilter({ name: {} })).toEqual({});
    expect(() => whereToFilter({ id: { in: Array.from({ length: 101 }, (_, i) => `x${i}`) } })).toThrow(AppError);
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
