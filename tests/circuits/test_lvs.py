"""Layout versus schematic (circuits/lvs.py, lvs_extract.py): every die under layouts/ checks clean as written;
mutations made on the GDS (a deleted ring, a mirrored detector, a ring of another radius, a moved waveguide, an
edited cell, a narrower waveguide) are found and named by the schematic's instance; ports read from GDS metadata
and placed by the extractor equal gdsfactory's own."""

import importlib.util
import math
from pathlib import Path

import klayout.db as kdb
import pytest
import yaml

from prismpic.circuits.lvs import (
    component_netlist,
    lvs_result,
    read_netlist,
    schematic_netlist,
)
from prismpic.circuits.lvs_extract import (
    Pin,
    find_cell,
    layout_netlist,
    library_from_component,
    metadata_pins,
    read_gds,
    settings_from_name,
)
from prismpic.circuits.splitter_tree import splitter_tree

LAYOUTS = Path(__file__).resolve().parents[2] / "layouts"


def _script(name):
    spec = importlib.util.spec_from_file_location(f"layouts_{name}_lvs", LAYOUTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


DIES = {  # the dies of layouts/ (the bank and the PTU tile at the small sizes their docstrings name)
    "die_frame": lambda: _script("die_frame").die(splitter_tree(n_outputs=4), ("LVS",)),
    "prototype_8x8": lambda: _script("prototype_8x8").build(),
    "prism_bank_chip": lambda: _script("prism_bank_chip").build(n_rows=4, d=4),
    "ptu_tile_chip": lambda: _script("ptu_tile_chip").build(rows=2, cols=2),
}
# devices each die must hold (from its parameters), so that a clean result is not an empty one
EXPECTED = {
    "die_frame": {"y_splitter": 3, "edge_coupler": 2},  # a 1×4 tree; the loopback's two couplers
    "prototype_8x8": {"ring_add_drop": 64, "balanced_photodetector": 8, "edge_coupler": 3},
    "prism_bank_chip": {"ring_add_drop": 16, "balanced_photodetector": 4, "edge_coupler": 3},
    "ptu_tile_chip": {"pcm_cell": 4, "soa": 2, "edge_coupler": 2 * 2 + 2},  # both facets of each row, the loopback
}


@pytest.fixture(scope="module")
def die():
    """``die(name)``: the die built once for the module."""
    built = {}

    def get(name):
        if name not in built:
            built[name] = DIES[name]()
        return built[name]

    return get


@pytest.fixture(scope="module")
def proto_gds(die, tmp_path_factory):
    """The 8×8 prototype die as ``layouts/prototype_8x8.py`` writes it (no metadata)."""
    path = tmp_path_factory.mktemp("proto") / "prototype_8x8.gds"
    _script("die_frame").write(die("prototype_8x8"), path)
    return path


def _count(net, function):
    return sum(d.function == function for d in net.devices.values())


@pytest.mark.parametrize("name", list(DIES))
def test_every_die_checks_clean_as_written(name, die, tmp_path):
    c = die(name)
    path = _script("die_frame").write(c, tmp_path / f"{name}.gds")  # as layouts/*.py write it: no metadata
    result = lvs_result(path, component=c)
    assert result.clean, "\n".join(m.line() for m in result.mismatches)
    assert result.layout_devices == result.devices and result.connections > 0
    layout = read_gds(path)
    net = layout_netlist(layout, find_cell(layout, c.name, None, "gds"), library_from_component(c))
    for function, n in EXPECTED[name].items():
        assert _count(net, function) == n, function
    assert all(d.source == "library" and d.pins for d in net.devices.values())


def test_die_with_metadata_checks_clean_against_its_netlist_file(die, tmp_path):
    """The netlist as gdsfactory writes it (settings and placements rounded to 3 digits), read back from YAML;
    the top-level port names come from the GDS's metadata and are checked too."""
    c = die("prototype_8x8")
    path = tmp_path / "p.gds"
    c.write_gds(path, with_metadata=True)
    netfile = tmp_path / "p.yml"
    netfile.write_text(yaml.safe_dump(c.get_netlist(recursive=True, on_dangling_port="ignore")))
    result = lvs_result(path, netlist=read_netlist(netfile))
    assert result.clean, "\n".join(m.line() for m in result.mismatches)
    assert result.ports == len(c.ports) and not any("port names" in n for n in result.notes)


def test_metadata_ports_equal_the_cells_own(die, tmp_path):
    """kfactory's port records in the GDS, parsed, equal the in-memory cells' ports (position, angle, width, kind)."""
    c = die("prototype_8x8")
    path = tmp_path / "p.gds"
    c.write_gds(path, with_metadata=True)
    layout = read_gds(path)
    lib = library_from_component(c)
    assert len(lib) > 10
    for name, cell in lib.items():
        got = metadata_pins(layout, layout.cell(name))
        assert got.keys() == cell.pins.keys(), name
        for k, p in cell.pins.items():
            q = got[k]
            assert (q.x, q.y, q.width) == pytest.approx((p.x, p.y, p.width), abs=1e-9), (name, k)
            assert (q.angle, q.kind) == (p.angle, p.kind), (name, k)


def test_pins_are_placed_as_gdsfactory_places_instance_ports():
    """Mirrored and rotated instances (the tree's lower bends are mirrored): Pin.transformed equals the ports
    gdsfactory computes for each instance."""
    tree = splitter_tree(n_outputs=4)
    mirrored = 0
    for inst in tree.insts:
        mirrored += inst.dcplx_trans.is_mirror()
        for p in inst.cell.ports:
            pin = Pin(p.dcenter[0], p.dcenter[1], p.orientation % 360, p.width, p.port_type).transformed(
                inst.dcplx_trans)
            q = inst.ports[p.name]
            assert (pin.x, pin.y) == pytest.approx(q.dcenter, abs=1e-9)
            assert pin.angle == pytest.approx(q.orientation % 360, abs=1e-9)
    assert mirrored > 0


# ---------------------------------------------------------------------------- mutations on the GDS
def _instance_name(recnet: dict, key: str, path: list[tuple[str, tuple[float, float]]]) -> str:
    """The schematic path of an instance found by gdsfactory's own netlist: at each level, the instance of that
    component prefix at that placement (µm)."""
    names = []
    for prefix, (x, y) in path:
        net = recnet[key]
        hits = [n for n, inst in net["instances"].items() if inst["component"].startswith(prefix)
                and math.isclose(net["placements"][n]["x"], x, abs_tol=2e-3)
                and math.isclose(net["placements"][n]["y"], y, abs_tol=2e-3)]
        assert len(hits) == 1, (prefix, x, y, hits)
        names.append(hits[0])
        key = net["instances"][hits[0]]["component"]
    return "/".join(names)


def _own_row(layout: kdb.Layout, k: int):
    """Row k (by height) of the bank given its own copies of the row and channel cells (all rows share one cell);
    returns (path to the row as [(component, placement)], row cell, channel cell, channel placement)."""
    top = layout.top_cell()
    proto = next(i for i in top.each_inst() if i.cell.name.startswith("prototype_"))
    bank = next(i for i in proto.cell.each_inst() if i.cell.name.startswith("prism_bank_"))
    row = sorted(bank.cell.each_inst(), key=lambda i: i.dcplx_trans.disp.y)[k]
    row_cell = row.cell.dup()
    row.cell_index = row_cell.cell_index()
    ch = next(i for i in row_cell.each_inst() if i.cell.name.startswith("prism_channel_"))
    ch_cell = ch.cell.dup()
    ch.cell_index = ch_cell.cell_index()
    path = [(p, (i.dcplx_trans.disp.x, i.dcplx_trans.disp.y)) for p, i in
            (("prototype", proto), ("prism_bank", bank), ("prism_row", row))]
    return path, row_cell, ch_cell, ch


def _rings(channel_cell):
    return sorted((i for i in channel_cell.each_inst() if i.cell.name.startswith("ring_add_drop_")),
                  key=lambda i: i.dcplx_trans.disp.x)


def _where(inst):
    return inst.dcplx_trans.disp.x, inst.dcplx_trans.disp.y


def test_a_deleted_ring_is_missing_by_name(die, proto_gds):
    c = die("prototype_8x8")
    layout = read_gds(proto_gds)
    path, _, ch_cell, ch = _own_row(layout, 3)
    ring = _rings(ch_cell)[5]
    path += [("prism_channel", _where(ch)), ("ring_add_drop", _where(ring))]
    ring.delete()
    result = lvs_result(layout, component=c, what="mutated")
    expected = _instance_name(c.get_netlist(recursive=True, on_dangling_port="ignore"), "die", path)
    assert [(m.kind, m.instance) for m in result.mismatches] == [("missing", expected)]
    assert expected.startswith("prototype/") and "ring_add_drop" in expected.rsplit("/", 1)[-1]


def test_a_mirrored_detector_has_its_through_and_drop_ports_swapped(die, proto_gds):
    """The balanced detector of row 6 mirrored about the line between its inputs (o1 at y = 0, o2 at y = 9.4 µm in
    the cell, ``balanced_photodetector`` ports): the through path lands on o2 and the drop path on o1."""
    c = die("prototype_8x8")
    det_cell = next(cell for name, cell in library_from_component(c).items()
                    if name.startswith("balanced_photodetector"))
    o1, o2 = det_cell.pins["o1"], det_cell.pins["o2"]
    assert o1.x == o2.x and o1.angle == o2.angle == 180.0
    layout = read_gds(proto_gds)
    path, row_cell, _, _ = _own_row(layout, 6)
    det = next(i for i in row_cell.each_inst() if i.cell.name.startswith("balanced_photodetector_"))
    path += [("balanced_photodetector", _where(det))]
    det.dcplx_trans = det.dcplx_trans * kdb.DCplxTrans(1.0, 0.0, True, 0.0, o1.y + o2.y)  # y -> (o1+o2) - y
    result = lvs_result(layout, component=c, what="mutated")
    expected = _instance_name(c.get_netlist(recursive=True, on_dangling_port="ignore"), "die", path)
    assert {m.instance for m in result.mismatches} == {expected}
    kinds = {m.kind: m for m in result.mismatches}
    assert set(kinds) == {"swapped", "placement"}
    assert "ports o1 and o2 are swapped" in kinds["swapped"].detail
    assert "mirrored in the layout" in kinds["placement"].detail


def _cell_from(component, layout: kdb.Layout, tmp_path: Path, with_metadata: bool) -> kdb.Cell:
    """``component`` written to a GDS of its own and copied into ``layout`` (with its metadata if asked)."""
    path = tmp_path / f"{component.name}_{with_metadata}.gds"
    component.write_gds(path, with_metadata=with_metadata)
    other = read_gds(path)
    src = other.cell(component.name)
    cell = layout.create_cell(f"{component.name}{'_meta' if with_metadata else ''}")
    cell.copy_tree(src)
    for meta in src.each_meta_info():
        cell.add_meta_info(meta)
    return cell


def test_a_ring_of_another_radius_is_named_with_both_radii(die, proto_gds, tmp_path):
    from prismpic.components.rings import ring_add_drop

    c = die("prototype_8x8")
    layout = read_gds(proto_gds)
    path, _, ch_cell, ch = _own_row(layout, 0)
    ring = _rings(ch_cell)[2]
    path += [("prism_channel", _where(ch)), ("ring_add_drop", _where(ring))]
    recnet = c.get_netlist(recursive=True, on_dangling_port="ignore", serialization_max_digits=12)
    expected = _instance_name(recnet, "die", path)
    radius = recnet[_component_at(recnet, path)]["instances"][expected.rsplit("/", 1)[-1]]["settings"]["radius"]
    wrong = round(radius + 0.1, 3)
    ring.cell_index = _cell_from(ring_add_drop(radius=wrong), layout, tmp_path, with_metadata=False).cell_index()
    result = lvs_result(layout, component=c, what="mutated")
    assert [(m.kind, m.instance) for m in result.mismatches] == [("parameters", expected)]
    assert f"radius {radius:.6g} in the schematic, {wrong:g} in the layout" in result.mismatches[0].detail


def _component_at(recnet, path):
    """The netlist key of the cell holding the last instance of ``path``."""
    key = "die"
    for prefix, (x, y) in path[:-1]:
        net = recnet[key]
        key = next(inst["component"] for n, inst in net["instances"].items() if inst["component"].startswith(prefix)
                   and math.isclose(net["placements"][n]["x"], x, abs_tol=2e-3)
                   and math.isclose(net["placements"][n]["y"], y, abs_tol=2e-3))
    return key


@pytest.fixture(scope="module")
def frame_gds(die, tmp_path_factory):
    """The die_frame die (a 1×4 tree) as layouts/ write it, and its component."""
    path = tmp_path_factory.mktemp("frame") / "frame.gds"
    _script("die_frame").write(die("die_frame"), path)
    return path


def _tree_cell(layout):
    return next(c for c in layout.each_cell() if c.name.startswith("splitter_tree_"))


def test_a_moved_waveguide_is_misplaced_and_open_at_both_ends(die, frame_gds):
    c = die("die_frame")
    layout = read_gds(frame_gds)
    tree = _tree_cell(layout)
    stub = next(i for i in tree.each_inst() if i.cell.name.startswith("straight_L5_"))  # a 5 µm stub
    stub.dcplx_trans = kdb.DCplxTrans(1.0, 0.0, False, 1.0, 0.0) * stub.dcplx_trans  # 1 µm east
    result = lvs_result(layout, component=c, what="mutated")
    kinds = sorted(m.kind for m in result.mismatches)
    assert kinds == ["open", "open", "placement"], [m.line() for m in result.mismatches]
    placement = next(m for m in result.mismatches if m.kind == "placement")
    assert placement.instance.startswith("splitter_tree/straight")
    assert all(placement.instance + ",o" in m.detail for m in result.mismatches if m.kind == "open")


def test_a_cell_edited_under_its_own_name_differs_in_geometry(die, frame_gds):
    c = die("die_frame")
    layout = read_gds(frame_gds)
    splitter = next(cell for cell in layout.each_cell() if cell.name.startswith("y_splitter_"))
    splitter.shapes(layout.layer(1, 0)).insert(kdb.DBox(12.0, -0.05, 14.0, 0.05))  # a ridge bridge in the Y
    result = lvs_result(layout, component=c, what="mutated")
    assert {m.kind for m in result.mismatches} == {"geometry"}
    assert len(result.mismatches) == 3  # the 1×4 tree's three splitters share the cell
    assert all("y_splitter" in m.instance and "layer 1/0" in m.detail for m in result.mismatches)


def test_a_narrower_waveguide_meets_its_neighbours_without_connecting(die, tmp_path):
    """A stub replaced by one 0.2 µm narrower (GDS with metadata, so its ports are known): both its ends are
    contacts of unequal width, and its width is a parameter mismatch."""
    from prismpic.components.waveguides import straight

    c = die("die_frame")
    path = tmp_path / "f.gds"
    c.write_gds(path, with_metadata=True)
    layout = read_gds(path)
    stub = next(i for i in _tree_cell(layout).each_inst() if i.cell.name.startswith("straight_L5_"))
    stub.cell_index = _cell_from(straight(length=5.0, width=1.2), layout, tmp_path, True).cell_index()
    result = lvs_result(layout, component=c, what="mutated")
    kinds = sorted(m.kind for m in result.mismatches)
    assert kinds == ["contact", "contact", "parameters"], [m.line() for m in result.mismatches]
    assert all("widths 1.4 and 1.2" in m.detail or "widths 1.2 and 1.4" in m.detail
               for m in result.mismatches if m.kind == "contact")


# ---------------------------------------------------------------------------- reading
def test_settings_are_read_from_a_cell_name():
    # gdsfactory's name for ring_add_drop(radius=20.2): {ABBREVIATION}{value} in parameter order, p for the point
    name = "ring_add_drop_R20p2_G0p2_GDNone_W1p4_BLNone_EG6_EC0p5_EW10"
    assert settings_from_name(name, "ring_add_drop") == {
        "radius": 20.2, "gap": 0.2, "gap_drop": None, "width": 1.4, "bus_length": None, "electrode_gap": 6.0,
        "electrode_coverage": 0.5, "electrode_width": 10.0}
    assert settings_from_name("sbend_L40_Om0p204_W1p4_CSxs_ridge", "sbend") == {"length": 40.0, "offset": -0.204,
                                                                                "width": 1.4}
    hashed = "ring_add_drop_R19p948423804851085_G0p2_GDNone_W1p4_BLNo_4c1f3b9b"  # cut at 55 characters + hash
    assert settings_from_name(hashed, "ring_add_drop") == {"radius": 19.948423804851085, "gap": 0.2,
                                                           "gap_drop": None, "width": 1.4}


def test_bad_netlists_are_refused_naming_the_file(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("instances: [unclosed\n")
    with pytest.raises(ValueError, match=r"--netlist = '.*bad\.yml' does not parse as YAML"):
        read_netlist(bad, "--netlist")
    js = tmp_path / "list.json"
    js.write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"list\.json' is not a netlist: expected a mapping"):
        read_netlist(js, "--netlist")
    with pytest.raises(ValueError, match="does not exist"):
        read_netlist(tmp_path / "absent.yml", "--netlist")
    no_place = {"instances": {"s": {"component": "straight", "settings": {}}}, "placements": {}}
    with pytest.raises(ValueError, match="instance s has no placement"):
        schematic_netlist(no_place, "net.yml")
    foreign = {"instances": {"m": {"component": "mmi1x2"}, "s": {"component": "straight"}},
               "placements": {"s": {"x": 0, "y": 0}}, "nets": [{"p1": "m,o1", "p2": "s,o1"}]}
    with pytest.raises(ValueError, match="'mmi1x2' is neither a prismpic device nor a cell of this netlist"):
        schematic_netlist(foreign, "net.yml")
    good = {"instances": {"s": {"component": "straight", "settings": {"length": 5}}},
            "placements": {"s": {"x": 0, "y": 0, "rotation": 0, "mirror": False}}, "ports": {"o1": "s,o1"}}
    assert set(schematic_netlist(good).devices) == {"s"}
    for broken, message in (
            ({**good, "nets": "s,o1 s,o2"}, "the nets of 'top' are not a list"),
            ({**good, "nets": [{"p1": "s,o1"}]}, "is not two 'instance,port' references"),
            ({**good, "nets": [{"p1": "s,o2", "p2": "t,o1"}]}, "'t,o1' in 'top' names no instance port"),
            ({**good, "placements": {"s": {"x": 0, "y": 0, "rotation": "east"}}}, "rotation = 'east'"),
            ({**good, "placements": {"s": {"x": 0, "y": 0, "mirror": "x"}}}, "mirror = 'x'"),
            ({**good, "instances": {"s": {"component": "straight", "settings": [5]}}}, "settings of instance s"),
            ({**good, "ports": ["s,o1"]}, "the ports of 'top' are not a mapping"),
            ({"a": {"instances": {"b": {"component": "a"}}}}, "a cycle")):
        with pytest.raises(ValueError, match=message):
            schematic_netlist(broken, "net.yml")


def test_a_gds_that_does_not_parse_or_lacks_the_cell_is_refused(tmp_path):
    junk = tmp_path / "junk.gds"
    junk.write_text("not a layout\n")
    with pytest.raises(ValueError, match=r"GDS = '.*junk\.gds' cannot be read as GDS or OASIS"):
        read_gds(junk)
    tree = splitter_tree(n_outputs=2)
    path = tmp_path / "t.gds"
    tree.write_gds(path)
    from prismpic.components.rings import ring_all_pass

    with pytest.raises(ValueError, match="has no cell 'ring_all_pass.*' nor any 'ring_all_pass' cell"):
        lvs_result(path, component=ring_all_pass())


def test_a_flat_netlist_resolves_through_no_levels():
    net = component_netlist(splitter_tree(n_outputs=2))
    flat = schematic_netlist(net[next(iter(net))])
    # a 1×2 tree: one splitter, per branch two bends, a vertical and a stub (test_splitter_tree's count)
    assert len(flat.devices) == 1 + 2 * 4 and len(flat.connections) == 2 * 8 and set(flat.ports) == {"o1", "o2", "o3"}
