import { loadModule, parseSync } from 'libpg-query';

await loadModule(); // the parser is PostgreSQL's own, compiled to WebAssembly

/**
 * Whether Citus could route a statement to one shard when the tenant tables are distributed by business: every
 * tenant table the statement reads or writes has its distribution column (`business_id`; `business` by its `id`)
 * equal to a constant (a literal or a parameter), directly or through equalities with other such columns (a join on
 * business_id, a correlated subquery's `s.business_id = o.business_id`, an INSERT…SELECT's business_id). Only
 * equalities joined by AND count: one under OR or NOT, or `= any($1)`, may reach several businesses.
 */
export interface Routing {
  /** select, insert, update, delete (or merge): what is checked; anything else (DDL, SET, BEGIN, DO) is `other`. */
  kind: 'dml' | 'other';
  /** The tenant tables the statement names, in order. */
  tables: string[];
  /** The tenant tables (as named, with their alias) not pinned to one business. */
  unpinned: string[];
}

/** Tenant table → its distribution column. */
export type TenantTables = ReadonlyMap<string, string>;

type Node = Record<string, unknown>;
type Columns = Map<string, string>; // output column → union-find id
interface Item {
  names: string[]; // alias, or the table's name
  table?: string; // a tenant table
  dist?: string; // its distribution column's id
  columns?: Columns; // what a subquery or CTE exports
  opaque?: true; // a function's rows: its columns are not known here
}
interface Scope {
  parent?: Scope;
  items: Item[];
  ctes: Map<string, Columns>;
}

const CONST = 'const';
const DML = new Set(['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

export function routing(sql: string, tenant: TenantTables): Routing {
  const parsed = parseSync(sql) as { stmts: Array<{ stmt: Node }> };
  const result: Routing = { kind: 'other', tables: [], unpinned: [] };
  for (const { stmt } of parsed.stmts) {
    const [type] = Object.keys(stmt);
    if (!DML.has(type)) continue;
    result.kind = 'dml';
    const one = new Analysis(tenant).statement(stmt);
    result.tables.push(...one.tables);
    result.unpinned.push(...one.unpinned);
  }
  return result;
}

/** PostgreSQL 18's parser puts RETURNING in `returningClause.exprs` (17's in `returningList`). */
const returning = (body: Node) => (((body.returningClause as Node)?.exprs ?? body.returningList) as Node[]) ?? [];

class Analysis {
  private readonly parents = new Map<string, string>();
  private readonly occurrences: Array<{ label: string; id: string }> = [];
  private next = 0;

  constructor(private readonly tenant: TenantTables) {}

  statement(stmt: Node): { tables: string[]; unpinned: string[] } {
    this.query(stmt, undefined);
    const pinned = this.find(CONST);
    return {
      tables: this.occurrences.map((o) => o.label.split(' ')[0]),
      unpinned: this.occurrences.filter((o) => this.find(o.id) !== pinned).map((o) => o.label),
    };
  }

  private find(id: string): string {
    let root = id;
    while (this.parents.has(root)) root = this.parents.get(root)!;
    return root;
  }

  private union(a: string | undefined, b: string | undefined) {
    if (!a || !b) return;
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra !== rb) this.parents.set(ra, rb);
  }

  private fresh(name: string): string {
    return `${name}#${this.next++}`;
  }

  /** A statement node of any kind (SELECT, INSERT, UPDATE, DELETE) → its output columns, in order. */
  private query(node: Node, parent: Scope | undefined): Array<[string, string | undefined]> {
    const [type] = Object.keys(node);
    const body = node[type] as Node;
    const scope: Scope = { parent, items: [], ctes: new Map(parent?.ctes) };
    for (const cte of ((body.withClause as Node)?.ctes as Node[]) ?? []) {
      const c = cte.CommonTableExpr as Node;
      const out = this.query(c.ctequery as Node, scope);
      scope.ctes.set(c.ctename as string, new Map(out.filter((o): o is [string, string] => !!o[1])));
    }
    switch (type) {
      case 'SelectStmt':
        return this.select(body, scope);
      case 'InsertStmt':
        return this.insert(body, scope);
      case 'UpdateStmt':
      case 'DeleteStmt':
        this.addItem(body.relation as Node, scope);
        for (const from of ((body.fromClause ?? body.usingClause) as Node[]) ?? []) this.from(from, scope);
        for (const target of (body.targetList as Node[]) ?? []) this.expression((target.ResTarget as Node).val as Node, scope, false);
        this.expression(body.whereClause as Node, scope, true);
        return this.targets(returning(body), scope);
      default:
        // MERGE: its tables are named, never pinned here.
        this.walk(body, scope);
        return [];
    }
  }

  private select(body: Node, scope: Scope): Array<[string, string | undefined]> {
    if (body.op && body.op !== 'SETOP_NONE') {
      const left = this.query({ SelectStmt: body.larg }, scope);
      this.query({ SelectStmt: body.rarg }, scope);
      return left.map(([name]) => [name, undefined]);
    }
    if (body.valuesLists) {
      return ((body.valuesLists as Node[])[0]?.List as Node)?.items
        ? (((body.valuesLists as Node[])[0].List as Node).items as Node[]).map((_, i) => {
            const values = (body.valuesLists as Node[]).map((row) => this.value(((row.List as Node).items as Node[])[i], scope));
            return [`column${i + 1}`, values.every((v) => v && this.find(v) === this.find(CONST)) ? CONST : undefined];
          })
        : [];
    }
    for (const from of (body.fromClause as Node[]) ?? []) this.from(from, scope);
    this.expression(body.whereClause as Node, scope, true);
    this.expression(body.havingClause as Node, scope, false);
    for (const key of ['groupClause', 'sortClause', 'distinctClause']) this.walk(body[key], scope);
    return this.targets(body.targetList as Node[], scope);
  }

  private insert(body: Node, scope: Scope): Array<[string, string | undefined]> {
    const item = this.addItem(body.relation as Node, scope);
    const columns = ((body.cols as Node[]) ?? []).map((c) => (c.ResTarget as Node).name as string);
    const source = body.selectStmt as Node | undefined;
    const out = source ? this.query(source, { parent: scope.parent, items: [], ctes: scope.ctes }) : [];
    if (item.dist) {
      const at = columns.indexOf(this.tenant.get(item.table!)!);
      if (at >= 0) this.union(item.dist, out[at]?.[1]);
    }
    this.walk(body.onConflictClause, scope);
    return this.targets(returning(body), scope);
  }

  private targets(list: Node[] | undefined, scope: Scope): Array<[string, string | undefined]> {
    const out: Array<[string, string | undefined]> = [];
    for (const target of list ?? []) {
      const t = target.ResTarget as Node;
      const val = t.val as Node;
      const ref = val?.ColumnRef as Node | undefined;
      const fields = ((ref?.fields as Node[]) ?? []).map((f) => (f.String as Node)?.sval as string | undefined);
      if (ref && fields.at(-1) === undefined) {
        // `*` or `t.*`: the distribution columns of the items it covers.
        const items = fields.length > 1 ? scope.items.filter((i) => i.names.includes(fields.at(-2)!)) : scope.items;
        for (const i of items) {
          if (i.dist) out.push([this.tenant.get(i.table!)!, i.dist]);
          for (const [name, id] of i.columns ?? []) out.push([name, id]);
        }
        continue;
      }
      this.expression(val, scope, false);
      out.push([(t.name as string) ?? fields.at(-1) ?? '?column?', this.value(val, scope)]);
    }
    return out;
  }

  /** A FROM entry: tables, joins, subqueries, functions. */
  private from(node: Node, scope: Scope) {
    if (node.RangeVar) this.addItem(node.RangeVar as Node, scope);
    else if (node.JoinExpr) {
      const j = node.JoinExpr as Node;
      const before = scope.items.length;
      this.from(j.larg as Node, scope);
      const middle = scope.items.length;
      this.from(j.rarg as Node, scope);
      for (const u of (j.usingClause as Node[]) ?? []) {
        const name = (u.String as Node).sval as string;
        const left = scope.items
          .slice(before, middle)
          .map((i) => this.columnOf(i, name))
          .find(Boolean);
        const right = scope.items
          .slice(middle)
          .map((i) => this.columnOf(i, name))
          .find(Boolean);
        this.union(left, right);
      }
      // An outer join's ON pins the inner side only where it matches; Citus routes it all the same.
      this.expression(j.quals as Node, scope, true);
    } else if (node.RangeSubselect) {
      const r = node.RangeSubselect as Node;
      const out = this.query(r.subquery as Node, r.lateral ? scope : { parent: scope.parent, items: [], ctes: scope.ctes });
      scope.items.push({ names: [((r.alias as Node)?.aliasname as string) ?? ''], columns: new Map(out.filter((o): o is [string, string] => !!o[1])) });
    } else if (node.RangeFunction) {
      const r = node.RangeFunction as Node;
      this.walk(r.functions, scope);
      scope.items.push({ names: [((r.alias as Node)?.aliasname as string) ?? ''], opaque: true });
    } else this.walk(node, scope);
  }

  private addItem(rv: Node, scope: Scope): Item {
    const name = rv.relname as string;
    const alias = (rv.alias as Node)?.aliasname as string | undefined;
    const names = alias ? [alias] : [name];
    const cte = !rv.schemaname ? scope.ctes.get(name) : undefined;
    const item: Item = cte ? { names, columns: cte } : { names };
    if (!cte && this.tenant.has(name)) {
      item.table = name;
      item.dist = this.fresh(`${name}.${this.tenant.get(name)}`);
      this.occurrences.push({ label: alias && alias !== name ? `${name} ${alias}` : name, id: item.dist });
    }
    scope.items.push(item);
    return item;
  }

  private columnOf(item: Item, name: string): string | undefined {
    if (item.table && this.tenant.get(item.table) === name) return item.dist;
    return item.columns?.get(name);
  }

  /** A column reference → its union-find id, when it is a distribution column (or a subquery's export of one). */
  private column(fields: string[], scope: Scope): string | undefined {
    const name = fields.at(-1)!;
    if (fields.length >= 2) {
      const qualifier = fields.at(-2)!;
      for (let s: Scope | undefined = scope; s; s = s.parent) {
        const item = s.items.find((i) => i.names.includes(qualifier));
        if (item) return this.columnOf(item, name);
      }
      return undefined;
    }
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      if (!s.items.length) continue;
      // `business`'s own `id` only when it is alone: any table may have an `id`.
      const owners = s.items.filter((i) => this.columnOf(i, name) && (name !== 'id' || s.items.length === 1));
      if (owners.length) {
        // Two owners only when JOIN … USING merged them: both are one value.
        for (const o of owners.slice(1)) this.union(this.columnOf(owners[0], name), this.columnOf(o, name));
        return this.columnOf(owners[0], name);
      }
      // Not this level's (no tenant table here has it): an outer query's, unless a function's rows may hold it.
      if (name === 'id' || s.items.some((i) => i.opaque)) return undefined;
    }
    return undefined;
  }

  /** An expression's value as a union-find id: a constant, or a distribution column. */
  private value(node: Node | undefined, scope: Scope): string | undefined {
    if (!node) return undefined;
    if (node.A_Const || node.ParamRef) return CONST;
    if (node.TypeCast) return this.value((node.TypeCast as Node).arg as Node, scope);
    if (node.ColumnRef) {
      const fields = ((node.ColumnRef as Node).fields as Node[]).map((f) => (f.String as Node)?.sval as string);
      return fields.every(Boolean) ? this.column(fields, scope) : undefined;
    }
    return undefined;
  }

  /** Walks an expression for subqueries; where it is a conjunct (`pins`), its equalities join what they equate. */
  private expression(node: Node | undefined, scope: Scope, pins: boolean) {
    if (!node) return;
    if (pins && node.BoolExpr && (node.BoolExpr as Node).boolop === 'AND_EXPR') {
      for (const arg of (node.BoolExpr as Node).args as Node[]) this.expression(arg, scope, true);
      return;
    }
    if (pins && node.A_Expr) {
      const e = node.A_Expr as Node;
      const op = ((e.name as Node[])?.[0]?.String as Node)?.sval;
      const list = (e.rexpr as Node)?.List as Node | undefined;
      if (e.kind === 'AEXPR_OP' && op === '=') this.union(this.value(e.lexpr as Node, scope), this.value(e.rexpr as Node, scope));
      else if (e.kind === 'AEXPR_IN' && op === '=' && (list?.items as Node[])?.length === 1) {
        this.union(this.value(e.lexpr as Node, scope), this.value((list!.items as Node[])[0], scope));
      }
    }
    this.walk(node, scope);
  }

  /** Any node: each subquery in it is a query of its own, seeing this scope. */
  private walk(node: unknown, scope: Scope) {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) this.walk(n, scope);
      return;
    }
    const n = node as Node;
    if (n.SubLink) {
      const s = n.SubLink as Node;
      this.walk(s.testexpr, scope);
      this.query(s.subselect as Node, scope);
      return;
    }
    if (n.SelectStmt || n.InsertStmt || n.UpdateStmt || n.DeleteStmt) {
      this.query(n, scope);
      return;
    }
    for (const value of Object.values(n)) this.walk(value, scope);
  }
}
