// What the physics benchmark needs of Jolt Physics that JoltC 0.3.1 (joltc-sys) does not bind:
// a mesh shape made from triangles (the terrain), the solver's step counts, gravity, a body's
// mass (for the test that the engines agree on it), and the check that this file was compiled
// with the library's own configuration. Built by tools/build.rs, only with
// the `jolt` feature, against the Jolt headers joltc-sys builds, with the defines of its CMake
// build (a mismatch changes the layout of Jolt's classes; `blockfall_jolt_abi_matches` says so).
//
// JoltC's handles are Jolt's own objects cast (JPC_PhysicsSystem is a JPH::PhysicsSystem,
// JPC_Shape a JPH::Shape, JPC_Body a JPH::Body), so these functions take and return Jolt's types and Rust declares
// them with JoltC's.

#include <Jolt/Jolt.h>

#include <Jolt/Physics/Body/Body.h>
#include <Jolt/Physics/Collision/Shape/MeshShape.h>
#include <Jolt/Physics/PhysicsSettings.h>
#include <Jolt/Physics/PhysicsSystem.h>
#include <Jolt/RegisterTypes.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {

// Whether the Jolt library linked was built with the configuration (precision, object layer
// bits, debug renderer, profiler, ...) this file was compiled with.
bool blockfall_jolt_abi_matches() { return JPH::VerifyJoltVersionID(); }

// A static mesh shape of `triangle_count` triangles (three indices each, counter-clockwise seen
// from the front: Jolt's bodies collide with the front faces alone) over `vertex_count` vertices
// (three floats each), with one reference held for the caller (`JPC_Shape_Release`). On failure:
// null, and Jolt's message in `error` (at most `error_len` bytes, ending in a zero).
JPH::Shape *blockfall_jolt_mesh_shape(const float *vertices, size_t vertex_count,
                                      const uint32_t *triangles, size_t triangle_count,
                                      char *error, size_t error_len) {
    JPH::VertexList points;
    points.reserve(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) {
        points.push_back(JPH::Float3(vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]));
    }
    JPH::IndexedTriangleList faces;
    faces.reserve(triangle_count);
    for (size_t i = 0; i < triangle_count; ++i) {
        faces.push_back(
            JPH::IndexedTriangle(triangles[3 * i], triangles[3 * i + 1], triangles[3 * i + 2], 0));
    }
    JPH::MeshShapeSettings settings(std::move(points), std::move(faces));
    JPH::ShapeSettings::ShapeResult result = settings.Create();
    if (result.HasError()) {
        if (error != nullptr && error_len > 0) {
            std::strncpy(error, result.GetError().c_str(), error_len - 1);
            error[error_len - 1] = '\0';
        }
        return nullptr;
    }
    JPH::Shape *shape = result.Get().GetPtr();
    shape->AddRef();
    return shape;
}

// The solver's step counts of `system` (PhysicsSettings: velocity steps, 10 by default, and
// position steps, 2 by default).
void blockfall_jolt_solver_steps(const JPH::PhysicsSystem *system, uint32_t *velocity,
                                 uint32_t *position) {
    const JPH::PhysicsSettings &settings = system->GetPhysicsSettings();
    *velocity = settings.mNumVelocitySteps;
    *position = settings.mNumPositionSteps;
}

// Sets the solver's step counts of `system`, its other settings left as they are.
void blockfall_jolt_set_solver_steps(JPH::PhysicsSystem *system, uint32_t velocity,
                                     uint32_t position) {
    JPH::PhysicsSettings settings = system->GetPhysicsSettings();
    settings.mNumVelocitySteps = velocity;
    settings.mNumPositionSteps = position;
    system->SetPhysicsSettings(settings);
}

// Sets the gravity of `system`, in meters per second squared.
void blockfall_jolt_set_gravity(JPH::PhysicsSystem *system, float x, float y, float z) {
    system->SetGravity(JPH::Vec3(x, y, z));
}

// The inverse of a dynamic body's mass, in 1/kg.
float blockfall_jolt_inverse_mass(const JPH::Body *body) {
    return body->GetMotionProperties()->GetInverseMass();
}

}
