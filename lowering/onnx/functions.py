"""ONNX function ops: a node GE has no builder for, imported through its definition.

Many ONNX ops (LinearAttention, SwiGLU, the variants of Attention, ...) are
defined in their schema as a function: a small graph of simpler ONNX ops. When
no builder takes the node, the importer asks the schema for that graph, at the
node's opset and for its input types, renames its values apart and imports its
nodes instead, so the op runs as the GE ops of its parts.
"""

from __future__ import annotations

from ge_dialect import ge
from lowering.onnx.common import ELEMENT_TYPES, OnnxUnsupported


def _type_proto(value):
    """The ONNX TypeProto of an imported value (element type and static or `?` dims)."""
    from onnx import helper

    element = ge.element_type(value.type)
    onnx_type = next(k for k, (e, _) in ELEMENT_TYPES.items() if e == element)
    dims = [d if d >= 0 else None for d in ge.shape_of(value)]
    return helper.make_tensor_type_proto(onnx_type, dims)


def _function(node, version: int, input_types):
    """The FunctionProto defining `node` at opset `version`, or None."""
    import onnx
    try:
        schema = onnx.defs.get_schema(node.op_type, version, node.domain or "")
    except onnx.defs.SchemaError:
        return None
    proto = onnx.FunctionProto()
    if schema.has_function and version >= min(schema.function_opset_versions, default=0):
        chosen = max(v for v in schema.function_opset_versions if v <= version)
        proto.ParseFromString(schema.get_function_with_opset_version(chosen))
        return proto
    if schema.has_context_dependent_function:
        usable = [v for v in schema.context_dependent_function_opset_versions if v <= version]
        if not usable:
            return None
        try:
            text = schema.get_context_dependent_function_with_opset_version(
                max(usable), node.SerializeToString(),
                [t.SerializeToString() for t in input_types])
        except Exception:  # noqa: BLE001 - the schema declines these inputs
            return None
        proto.ParseFromString(text)
        return proto
    return None


def expand(g, node, version: int, prefix: str) -> list | None:
    """The nodes of `node`'s function body, its values renamed apart with
    `prefix` and its attribute references resolved; None if it has none."""
    function = _function(node, version, [_input_type(g, name) for name in node.input])
    if function is None or not function.node:
        return None
    names = {formal: (node.input[i] if i < len(node.input) else "")
             for i, formal in enumerate(function.input)}
    names.update({formal: node.output[i] for i, formal in enumerate(function.output)
                  if i < len(node.output) and node.output[i]})
    given = {a.name: a for a in node.attribute}
    defaults = _schema_defaults(node, version)
    defaults.update({a.name: a for a in function.attribute_proto})

    def rename(name: str) -> str:
        return names.get(name, name and prefix + name)

    def resolve(attr):
        """A body attribute; one that refers to the node's attribute takes its value."""
        if not attr.ref_attr_name:
            return attr
        source = given.get(attr.ref_attr_name) or defaults.get(attr.ref_attr_name)
        if source is None:
            return None  # an optional attribute the node leaves out
        copy = type(attr)()
        copy.CopyFrom(source)
        copy.name = attr.name
        return copy

    return [_renamed_node(inner, rename, resolve) for inner in function.node]


def _schema_defaults(node, version: int) -> dict:
    """The default values the op's schema gives its attributes."""
    import onnx
    schema = onnx.defs.get_schema(node.op_type, version, node.domain or "")
    return {name: a.default_value for name, a in schema.attributes.items()
            if a.default_value.type != onnx.AttributeProto.UNDEFINED}


def _renamed_node(node, rename, resolve):
    """A copy of `node` with every value name (in its subgraphs too) renamed."""
    import onnx
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    del copy.input[:], copy.output[:], copy.attribute[:]
    copy.input.extend(rename(name) for name in node.input)
    copy.output.extend(rename(name) for name in node.output)
    for attr in node.attribute:
        attr = resolve(attr)
        if attr is None:
            continue
        if attr.type == onnx.AttributeProto.GRAPH:
            renamed = onnx.AttributeProto()
            renamed.CopyFrom(attr)
            renamed.g.CopyFrom(_renamed_graph(attr.g, rename, resolve))
            attr = renamed
        elif attr.type == onnx.AttributeProto.GRAPHS:
            raise OnnxUnsupported("a function body with a list of graphs")
        copy.attribute.append(attr)
    copy.name = rename(node.name or node.op_type)
    return copy


def _renamed_graph(graph, rename, resolve):
    import onnx
    copy = onnx.GraphProto()
    copy.CopyFrom(graph)
    for v in (*copy.input, *copy.output, *copy.value_info):
        v.name = rename(v.name)
    for t in copy.initializer:
        t.name = rename(t.name)
    del copy.node[:]
    copy.node.extend(_renamed_node(n, rename, resolve) for n in graph.node)
    return copy


def _input_type(g, name: str):
    """The TypeProto of a node input: an imported value, a constant or none."""
    from onnx import helper
    if not name:
        return helper.make_tensor_type_proto(0, None)  # an omitted optional input
    if name in g.constants:
        array = g.constants[name]
        return helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(array.dtype),
                                             list(array.shape))
    return _type_proto(g.value(name))
