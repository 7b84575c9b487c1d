"""Hostile uploads, made at test time: files that cost a reader far more than their size.

Each maker returns ``(file name, bytes)``. :data:`CASES` names them all, with the kind a page reads
them as; the reading tests and the browser test of the server iterate over it.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import zipfile

import numpy as np

_XLSX_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '{strings}</Types>'
)
_STRINGS_TYPE = ('<Override PartName="/xl/sharedStrings.xml" '
                 'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>')
_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
         'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
         'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
_BOOK = ('<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
         '2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
         '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>')
_BOOK_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
              '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
              '2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>{strings}</Relationships>')
_STRINGS_REL = ('<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                'sharedStrings" Target="sharedStrings.xml"/>')
_SHEET_HEAD = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
               'spreadsheetml/2006/main">{dimension}<sheetData>')
_SHEET_TAIL = "</sheetData></worksheet>"


def _xlsx(sheet_parts, strings_parts=None, dimension: str = "") -> bytes:
    """A workbook of one sheet whose XML (and shared strings) are written from iterables of byte chunks."""
    box = io.BytesIO()
    with zipfile.ZipFile(box, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _XLSX_TYPES.format(strings=_STRINGS_TYPE if strings_parts else ""))
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _BOOK)
        z.writestr("xl/_rels/workbook.xml.rels", _BOOK_RELS.format(strings=_STRINGS_REL if strings_parts else ""))
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            f.write(_SHEET_HEAD.format(dimension=dimension).encode())
            for part in sheet_parts:
                f.write(part)
            f.write(_SHEET_TAIL.encode())
        if strings_parts:
            with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as f:
                f.write(b'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/'
                        b'spreadsheetml/2006/main">')
                for part in strings_parts:
                    f.write(part)
                f.write(b"</sst>")
    return box.getvalue()


def _repeat(unit: bytes, total: int, block: int = 2**20):
    chunk = unit * max(1, block // len(unit))
    for _ in range(total // len(chunk)):
        yield chunk


@functools.cache
def sparse_far_xlsx():
    """Two cells, A1 and XFD1048576: a reader that pads the used range makes 17 billion cells of it."""
    rows = [b'<row r="1"><c r="A1"><v>1</v></c></row>',
            b'<row r="1048576"><c r="XFD1048576"><v>2</v></c></row>']
    return "far_cell.xlsx", _xlsx(rows)


@functools.cache
def declared_far_xlsx():
    """A sheet whose <dimension> claims A1:XFD1048576 but holds a 3 x 2 table: it should read."""
    rows = [f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}"><v>{i * 2}</v></c></row>'.encode() for i in (1, 2, 3)]
    return "claims_far.xlsx", _xlsx(rows, dimension='<dimension ref="A1:XFD1048576"/>')


@functools.cache
def sheet_bomb_xlsx(size: int = 2**30):
    """A sheet that inflates to ``size`` bytes of rows, with no <dimension> element to say so."""
    return "sheet_bomb.xlsx", _xlsx(_repeat(b"<row><c><v>1</v></c></row>", size))


@functools.cache
def shared_strings_bomb_xlsx(size: int = 2**30):
    """Shared strings that inflate to ``size`` bytes (63 million strings per GiB), read before any row."""
    rows = [b'<row r="1"><c r="A1" t="s"><v>0</v></c></row>']
    return "strings_bomb.xlsx", _xlsx(rows, _repeat(b"<si><t>x</t></si>", size))


@functools.cache
def deep_xlsx(depth: int = 200_000):
    """A sheet whose one cell is nested ``depth`` elements deep."""
    return "deep.xlsx", _xlsx([b'<row r="1"><c r="A1"><v>1</v></c></row>', b"<x>" * depth + b"</x>" * depth])


@functools.cache
def laughs_xlsx():
    """A shared-strings file that defines an entity expanding to a billion characters."""
    entities = "".join(f'<!ENTITY l{i} "{"&l%d;" % (i - 1) * 10}">' for i in range(1, 10))
    doc = (f'<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY l0 "ha">{entities}]>'
           '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&l9;</t></si></sst>')
    box = io.BytesIO(_xlsx([b'<row r="1"><c r="A1" t="s"><v>0</v></c></row>'], [b""]))
    out = io.BytesIO()
    with zipfile.ZipFile(box) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for item in src.infolist():
            z.writestr(item.filename, doc if item.filename.endswith("sharedStrings.xml") else src.read(item))
    return "laughs.xlsx", out.getvalue()


@functools.cache
def repeated_rows_ods(rows: int = 1_000_000):
    """A 1 KB .ods whose one row is repeated ``rows`` times."""
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
               '<office:body><office:spreadsheet><table:table table:name="Sheet1">'
               f'<table:table-row table:number-rows-repeated="{rows}">'
               '<table:table-cell office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell>'
               '<table:table-cell office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell>'
               '</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>')
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                '<manifest:file-entry manifest:full-path="/" '
                'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                '</manifest:manifest>')
    box = io.BytesIO()
    with zipfile.ZipFile(box, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
    return "repeated.ods", box.getvalue()


@functools.cache
def wide_parquet(rows: int = 5, columns: int = 100_000):
    """``rows`` x ``columns`` floats: small on disk, a footer and a frame that cost gigabytes to decode."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    values = pa.array(np.zeros(rows))
    table = pa.Table.from_arrays([values] * columns, names=[f"c{j}" for j in range(columns)])
    box = io.BytesIO()
    pq.write_table(table, box, compression="snappy", write_statistics=False)
    return "wide.parquet", box.getvalue()


@functools.cache
def long_string_parquet(chars: int = 100_000_000):
    """One cell of ``chars`` characters, compressed to a few kilobytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"x": pa.array([1.0]), "y": pa.array([2.0]), "title": pa.array(["a" * chars])})
    box = io.BytesIO()
    pq.write_table(table, box, compression="zstd", use_dictionary=False, write_statistics=False)
    return "long_cell.parquet", box.getvalue()


@functools.cache
def long_cell_csv(chars: int = 20_000_000):
    return "long_cell.csv", b"x,y,title\n1,2," + b"a" * chars + b"\n3,4,b\n"


@functools.cache
def one_line_text(size: int = 150 * 2**20):
    """One line of ``size`` bytes of words without a sentence end."""
    return "one_line.txt", b"lorem ipsum dolor sit amet " * (size // 27)


@functools.cache
def many_columns_csv(columns: int = 1_000_000):
    return "many_columns.csv", b",".join(b"1" for _ in range(columns)) + b"\n" + b",".join(b"2" for _ in range(columns)) + b"\n"


@functools.cache
def gzip_bomb_csv(size: int = 2**30):
    """A gzip stream of ``size`` zeros under a .csv name."""
    box = io.BytesIO()
    with gzip.GzipFile(fileobj=box, mode="wb", compresslevel=9) as f:
        for part in _repeat(b"0", size, 2**24):
            f.write(part)
    return "zeros.csv", box.getvalue()


@functools.cache
def bz2_bomb_tsv(size: int = 2**30):
    comp = bz2.BZ2Compressor(9)
    parts = [comp.compress(p) for p in _repeat(b"0", size, 2**24)]
    return "zeros.tsv", b"".join(parts) + comp.flush()


@functools.cache
def npy_huge_header():
    """An .npy whose header declares a 10^6 x 10^6 array over 16 bytes of data."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header = header + " " * (118 - len(header)) + "\n"
    return "huge.npy", b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\x00" * 16


@functools.cache
def pickled_npy():
    """An object array, which numpy writes as a pickle: never to be loaded."""
    box = io.BytesIO()
    np.save(box, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    return "objects.npy", box.getvalue()


@functools.cache
def many_rows_csv(rows: int = 3_000_000):
    """A long but honest file: 3 million rows of two numbers and a label."""
    line = b"0.5,1.5,alpha\n"
    return "long.csv", b"x,y,label\n" + line * rows


#: name -> (maker, kind the upload is read as, True when the read must succeed). Sizes where the size is not the
#: point are kept small (a compressed stream is refused by its first bytes); the browser test of the server
#: uploads the full-sized files of the cases it names.
CASES = {
    "sparse far cell (.xlsx)": (sparse_far_xlsx, "table", False),
    "declared far range (.xlsx)": (declared_far_xlsx, "vectors", True),
    "sheet bomb, no dimension (.xlsx)": (functools.partial(sheet_bomb_xlsx, 450 * 2**20), "table", False),
    "shared-strings bomb (.xlsx)": (functools.partial(shared_strings_bomb_xlsx, 110 * 2**20), "table", False),
    "deep XML (.xlsx)": (deep_xlsx, "table", True),
    "billion laughs (.xlsx)": (laughs_xlsx, "table", False),
    "a million repeated rows (.ods)": (repeated_rows_ods, "table", True),
    "30,000 columns (.parquet)": (functools.partial(wide_parquet, 5, 30_000), "vectors", False),
    "a 100 MB cell (.parquet)": (long_string_parquet, "vectors", False),
    "a 20 MB cell (.csv)": (long_cell_csv, "vectors", False),
    "20 MB on one line (.txt)": (functools.partial(one_line_text, 20 * 2**20), "documents", True),
    "200,000 columns (.csv)": (functools.partial(many_columns_csv, 200_000), "vectors", True),
    "gzip bomb (.csv)": (functools.partial(gzip_bomb_csv, 2**26), "vectors", False),
    "bzip2 bomb (.tsv)": (functools.partial(bz2_bomb_tsv, 2**26), "vectors", False),
    "declared 10^12 cells (.npy)": (npy_huge_header, "vectors", False),
    "pickled objects (.npy)": (pickled_npy, "vectors", False),
    "500,000 rows (.csv)": (functools.partial(many_rows_csv, 500_000), "vectors", True),
}
