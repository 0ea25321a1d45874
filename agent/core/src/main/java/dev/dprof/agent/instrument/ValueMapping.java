package dev.dprof.agent.instrument;

import dev.dprof.agent.config.ValueSource;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.ParameterDescription;
import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.implementation.bytecode.assign.primitive.PrimitiveWideningDelegate;
import net.bytebuddy.implementation.bytecode.member.FieldAccess;
import net.bytebuddy.implementation.bytecode.member.MethodInvocation;
import net.bytebuddy.implementation.bytecode.member.MethodVariableAccess;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Binds an advice parameter of type {@code long} to a value read in the woven method: an
 * argument, a field or getter of {@code this} or of an argument. Integral primitives are widened;
 * references go through {@code Probes.keyOf(Object)} (numbers by value, strings by a stable hash),
 * so both ends of a message compute the same key without allocating.
 *
 * <p>{@link #check} runs before weaving and returns the reason a source cannot apply to a method,
 * so a bad YAML key becomes one clear line instead of a class that fails to load.
 */
final class ValueMapping implements Advice.OffsetMapping {
    private static final TypeDescription LONG = TypeDescription.ForLoadedType.of(long.class);

    private final ValueSource source;
    private final MethodDescription keyOf;

    ValueMapping(ValueSource source, MethodDescription keyOf) {
        this.source = source;
        this.keyOf = keyOf;
    }

    /** Why {@code source} cannot be read in {@code method}, or {@code null} when it can. */
    static String check(ValueSource source, MethodDescription method) {
        try {
            plan(source, method, null);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    @Override
    public Target resolve(TypeDescription instrumentedType, MethodDescription instrumentedMethod,
                          Assigner assigner, Advice.ArgumentHandler argumentHandler, Sort sort) {
        List<StackManipulation> steps = new ArrayList<>();
        TypeDescription type = plan(source, instrumentedMethod, new Emitter(steps, argumentHandler));
        if (type.isPrimitive()) {
            if (!type.represents(long.class)) {
                steps.add(PrimitiveWideningDelegate.forPrimitive(type).widenTo(LONG));
            }
        } else {
            steps.add(MethodInvocation.invoke(keyOf.asDefined()));
        }
        return new Target.ForStackManipulation(new StackManipulation.Compound(steps));
    }

    /** Emits the loads of a plan; absent while only checking. */
    private record Emitter(List<StackManipulation> steps, Advice.ArgumentHandler handler) {
    }

    private static TypeDescription plan(ValueSource source, MethodDescription method, Emitter emit) {
        if (source instanceof ValueSource.Arg arg) {
            return loadArgument(method, arg.index(), emit);
        }
        if (source instanceof ValueSource.Field field) {
            TypeDescription owner = field.arg().isPresent()
                    ? loadArgument(method, field.arg().getAsInt(), emit) : loadThis(method, emit);
            FieldDescription found = findField(owner, field.name());
            if (!found.isVisibleTo(method.getDeclaringType().asErasure())) {
                throw new IllegalArgumentException("field " + field.name() + " of " + owner.getName()
                        + " is not visible from " + method.getDeclaringType().getTypeName());
            }
            if (emit != null) {
                emit.steps.add(FieldAccess.forField(found).read());
            }
            return found.getType().asErasure();
        }
        if (source instanceof ValueSource.Getter getter) {
            TypeDescription owner = getter.arg().isPresent()
                    ? loadArgument(method, getter.arg().getAsInt(), emit) : loadThis(method, emit);
            MethodDescription found = findGetter(owner, getter.name());
            if (!found.isVisibleTo(method.getDeclaringType().asErasure())) {
                throw new IllegalArgumentException("method " + getter.name() + " of " + owner.getName()
                        + " is not visible from " + method.getDeclaringType().getTypeName());
            }
            if (emit != null) {
                emit.steps.add(found.isStatic() ? MethodInvocation.invoke(found)
                        : MethodInvocation.invoke(found).virtual(owner));
            }
            TypeDescription result = found.getReturnType().asErasure();
            if (result.represents(void.class)) {
                throw new IllegalArgumentException("getter " + getter.name() + " returns void");
            }
            return result;
        }
        throw new IllegalArgumentException(source.describe() + " is not read from the method");
    }

    private static TypeDescription loadArgument(MethodDescription method, int index, Emitter emit) {
        if (index >= method.getParameters().size()) {
            throw new IllegalArgumentException("argument " + index + " does not exist in "
                    + method.toGenericString() + " (" + method.getParameters().size() + " parameters)");
        }
        ParameterDescription parameter = method.getParameters().get(index);
        TypeDescription type = parameter.getType().asErasure();
        if (type.represents(boolean.class) || type.represents(float.class) || type.represents(double.class)) {
            throw new IllegalArgumentException("argument " + index + " is a " + type.getName()
                    + "; a key must be an integral number or an object");
        }
        if (emit != null) {
            emit.steps.add(MethodVariableAccess.of(parameter.getType())
                    .loadFrom(emit.handler.argument(parameter.getOffset())));
        }
        return type;
    }

    private static TypeDescription loadThis(MethodDescription method, Emitter emit) {
        if (method.isStatic()) {
            throw new IllegalArgumentException("a field or getter of 'this' in static " + method.toGenericString());
        }
        if (method.isConstructor()) {
            throw new IllegalArgumentException("a field or getter of 'this' in a constructor");
        }
        if (emit != null) {
            emit.steps.add(MethodVariableAccess.loadThis());
        }
        return method.getDeclaringType().asErasure();
    }

    private static FieldDescription findField(TypeDescription owner, String name) {
        for (TypeDefinition t = owner; t != null; t = t.getSuperClass()) {
            var fields = t.getDeclaredFields().filter(ElementMatchers.named(name));
            if (!fields.isEmpty()) {
                return fields.getOnly();
            }
        }
        throw new IllegalArgumentException("no field '" + name + "' in " + owner.getName());
    }

    private static MethodDescription findGetter(TypeDescription owner, String name) {
        for (TypeDefinition t = owner; t != null; t = t.getSuperClass()) {
            var methods = t.getDeclaredMethods().filter(ElementMatchers.<MethodDescription>named(name)
                    .and(ElementMatchers.takesArguments(0)));
            if (!methods.isEmpty()) {
                return methods.getOnly();
            }
        }
        for (TypeDescription.Generic i : owner.getInterfaces()) {
            var methods = i.asErasure().getDeclaredMethods().filter(ElementMatchers.<MethodDescription>named(name)
                    .and(ElementMatchers.takesArguments(0)));
            if (!methods.isEmpty()) {
                return methods.getOnly();
            }
        }
        throw new IllegalArgumentException("no no-argument method '" + name + "' in " + owner.getName());
    }
}
