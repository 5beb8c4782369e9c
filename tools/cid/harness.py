"""Runs AWS's Cloud Intelligence Dashboards (CID) FOCUS code, vendored unmodified under
test/fixtures/cid/, against the Glue tables of the synthesized stack, with Athena answered over
stdin/stdout by the test (DuckDB through tools/duckdb-athena.ts).

Stubbed is only what CID reaches outside itself: the boto3 Athena client (ListDataCatalogs,
ListDatabases, ListTableMetadata, GetTableMetadata, StartQueryExecution, GetQueryExecution,
GetQueryResults), the boto3 session CidBase holds, and cid.utils' prompts (answered as a user
or a non-interactive run would). Python 3.11 stdlib only: CID's own requirements (boto3, yaml,
InquirerPy) are not installed; focus.yaml comes parsed from the test as JSON.

Usage: python3 harness.py <init.json>; requests and answers are JSON lines.
"""
import ast
import importlib.util
import itertools
import json
import logging
import re
import sys
import types
from pathlib import Path
from string import Template

logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

INIT = json.loads(Path(sys.argv[1]).read_text())
FIXTURES = Path(INIT['fixtures'])


# --- the Athena the test answers --------------------------------------------------------------

class Bridge:
    """One request line out, one answer line in."""

    phase = ''

    def query(self, sql, context):
        print(json.dumps({'type': 'query', 'phase': self.phase, 'sql': sql, 'context': context}), flush=True)
        return json.loads(sys.stdin.readline())


BRIDGE = Bridge()


class ClientError(Exception):
    pass


class PageIterator:
    """A boto3 PageIterator over fixed pages; search() knows the JMESPath CID uses here."""

    SEARCHES = {
        "DataCatalogsSummary[?Type == 'GLUE'].CatalogName":
            lambda page: [c['CatalogName'] for c in page['DataCatalogsSummary'] if c['Type'] == 'GLUE'],
        'DatabaseList[].Name': lambda page: [d['Name'] for d in page['DatabaseList']],
        'TableMetadataList': lambda page: page['TableMetadataList'],
    }

    def __init__(self, pages):
        self.pages = pages

    def __iter__(self):
        return iter(self.pages)

    def search(self, expression):
        pick = self.SEARCHES[expression]  # an expression not listed here fails loudly
        return itertools.chain.from_iterable(pick(page) for page in self.pages)

    def build_full_result(self):
        return self.pages[0]


class Paginator:
    def __init__(self, client, operation):
        self.client, self.operation = client, operation

    def paginate(self, **params):
        return PageIterator(getattr(self.client, '_' + self.operation)(**params))


class FakeAthenaClient:
    """The boto3 'athena' client, answering from the template's tables and the test's DuckDB."""

    class exceptions:
        ClientError = ClientError
        InvalidRequestException = type('InvalidRequestException', (ClientError,), {})
        MetadataException = type('MetadataException', (ClientError,), {})

    def __init__(self, databases):
        self.databases = databases
        self.executions = {}

    def get_paginator(self, operation):
        return Paginator(self, operation)

    def _list_data_catalogs(self, **_):
        return [{'DataCatalogsSummary': [{'CatalogName': 'AwsDataCatalog', 'Type': 'GLUE'}]}]

    def _list_databases(self, CatalogName):
        return [{'DatabaseList': [{'Name': name} for name in self.databases]}]

    def _list_table_metadata(self, CatalogName, DatabaseName, PaginationConfig=None):
        return [{'TableMetadataList': self.databases.get(DatabaseName, [])}]

    def get_table_metadata(self, CatalogName, DatabaseName, TableName):
        for table in self.databases.get(DatabaseName, []):
            if table['Name'] == TableName:
                return {'TableMetadata': table}
        raise self.exceptions.MetadataException(f'{DatabaseName}.{TableName} not found')

    def start_query_execution(self, QueryString, QueryExecutionContext, WorkGroup):
        execution_id = f'q{len(self.executions)}'
        self.executions[execution_id] = BRIDGE.query(QueryString, QueryExecutionContext)
        return {'QueryExecutionId': execution_id}

    def get_query_execution(self, QueryExecutionId):
        answer = self.executions[QueryExecutionId]
        state = 'SUCCEEDED' if answer['ok'] else 'FAILED'
        return {'QueryExecution': {'Status': {'State': state, 'StateChangeReason': answer.get('error')}}}

    def _get_query_results(self, QueryExecutionId):
        answer = self.executions[QueryExecutionId]
        cell = lambda v: {} if v is None else {'VarCharValue': str(v)}
        rows = [answer['columns'], *answer['rows']]
        return [{'ResultSet': {'Rows': [{'Data': [cell(v) for v in row]} for row in rows]}}]


class FakeSession:
    region_name = 'us-east-1'

    def __init__(self, client):
        self._client = client

    def client(self, service, region_name=None):
        assert service == 'athena', service
        return self._client


# --- CID's modules, with stubs for what they import from outside ------------------------------

class Prompts:
    """cid.utils' parameters and prompts: `answers` is what a user types, `interactive` isatty()."""

    params = {}
    answers = {}
    interactive = False


def get_parameter(param_name, message, choices=None, default=None, **_):
    if param_name in Prompts.params:
        return Prompts.params[param_name]
    return Prompts.answers.get(param_name, default)


def module(name, **attributes):
    m = types.ModuleType(name)
    m.__dict__.update(attributes)
    sys.modules[name] = m
    return m


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


class CidBase:
    """cid.base.CidBase as far as Athena uses it: the boto3 session and its region."""

    def __init__(self, session):
        self.session = session

    @property
    def region(self):
        return self.session.region_name


utils = module(
    'cid.utils',
    get_parameter=get_parameter,
    get_parameters=lambda: Prompts.params,
    set_parameters=lambda parameters, all_yes=None: Prompts.params.update(parameters),
    unset_parameter=lambda name: Prompts.params.pop(name, None),
    get_yesno_parameter=lambda param_name, message, default=None, **_: True,
    cid_print=lambda value, **_: None,
    isatty=lambda: Prompts.interactive,
)
module('cid', utils=utils).__path__ = [str(FIXTURES / 'cid')]
module('cid.helpers', S3=None).__path__ = [str(FIXTURES / 'cid' / 'helpers')]
module('cid.base', CidBase=CidBase)
module('cid.helpers.diff', diff=lambda *_: None)
exceptions = load('cid.exceptions', FIXTURES / 'cid' / 'exceptions.py')
athena_module = load('cid.helpers.athena', FIXTURES / 'cid' / 'helpers' / 'athena.py')
focus_module = load('cid.helpers.focus_consolidation', FIXTURES / 'cid' / 'helpers' / 'focus_consolidation.py')


class TaxonomyMerger:
    """cid.helpers.taxonomy_merger: groups tag choices for the prompt's display only."""

    def __init__(self, tag_fields):
        self.tag_fields = tag_fields

    def grouped_choices(self, fields):
        return list(fields)


def vendored_functions(path, names, class_name=None, **globals_):
    """Functions (or methods of class_name) of a vendored CID file, compiled as they are written,
    without the rest of the file (which needs CID's dependencies); `globals_` are the names of
    that file's module that they use."""
    tree = ast.parse((FIXTURES / path).read_text())
    body = tree.body
    if class_name:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == class_name).body
    found = [n for n in body if isinstance(n, ast.FunctionDef) and n.name in names]
    assert sorted(f.name for f in found) == sorted(names), (path, names)
    namespace = dict(globals_)
    exec(compile(ast.Module(body=found, type_ignores=[]), str(path), 'exec'), namespace)
    return [namespace[name] for name in names]


(merge_objects,) = vendored_functions('cid/utils.py', ['merge_objects'])
utils.merge_objects = merge_objects


def cid_methods(*names):
    """Methods of cid.common.Cid, with the globals of common.py that they use."""
    logger = logging.getLogger('cid.common')
    logger.trace = logger.debug  # cid.logger adds a TRACE level
    return vendored_functions(
        'cid/common.py', names, 'Cid',
        re=re, Template=Template, logger=logger, utils=utils, merge_objects=merge_objects,
        get_parameter=get_parameter, get_parameters=lambda: Prompts.params, TaxonomyMerger=TaxonomyMerger,
        CidError=exceptions.CidError, CidCritical=exceptions.CidCritical,
    )


class Cid:
    """The part of cid.common.Cid that renders a view: its athena and two methods, CID's own."""

    get_template_parameters, generic_tags_json = cid_methods('get_template_parameters', 'generic_tags_json')

    def __init__(self, athena):
        self.athena = athena


# --- the run ----------------------------------------------------------------------------------

def render_view(cid, name, definition):
    """cid.common.Cid.get_view_query for a view of focus.yaml: parameters, then the template."""
    params = cid.get_template_parameters(definition.get('parameters', {}), f'view-{name}-', {})
    return Template(definition['data']).safe_substitute({k: str(v) for k, v in params.items()})


def main():
    client = FakeAthenaClient(INIT['databases'])
    athena = athena_module.Athena(FakeSession(client))
    athena._DatabaseName = INIT['database']  # as `cid-cmd` has it once the user picked it
    athena._WorkGroup = 'primary'
    views = INIT['views']
    out = {'rendered': {}}

    consolidation = focus_module.FocusConsolidationView(
        athena=athena, columns=views['focus_consolidation_view']['columns'])
    BRIDGE.phase = 'discovery'
    out['discovered'] = consolidation.discover_focus_tables()
    out['consolidationSql'] = consolidation.generate_view_sql(out['discovered'])
    if INIT.get('discoverOnly'):  # discovery across the databases, no view created (no SQL run)
        print(json.dumps({'type': 'done', **out}), flush=True)
        return
    BRIDGE.phase = 'focus_consolidation_view'
    out['created'] = consolidation.create_or_update_view()  # non-interactive: every table found

    for mode, interactive, answers in (('no-tags', False, {}), ('tags', True, INIT['tagAnswers'])):
        Prompts.params, Prompts.answers, Prompts.interactive = {}, answers, interactive
        cid = Cid(athena)  # one cid-cmd run: the picked tags' SQL is reused by the second view
        for name in ('focus_resource_view', 'focus_summary_view'):
            BRIDGE.phase = f'{name}:{mode}'
            sql = render_view(cid, name, views[name])
            out['rendered'][BRIDGE.phase] = sql
            athena.execute_query(sql, sleep_duration=0)

    print(json.dumps({'type': 'done', **out}), flush=True)


main()
