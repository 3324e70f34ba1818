/*
 * ingestlab's root endpoint for Elasticsearch integration-test distributions that lack the rest-root module
 * (8.19 and 9.x): GET / and HEAD / answer as a full distribution does, from the node's own build and state.
 * Compiled at provisioning time against the distribution's own jars (see root_endpoint.py).
 */
package org.ingestlab.rootendpoint;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterName;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

public class RootEndpointPlugin extends Plugin implements ActionPlugin {
    private volatile ClusterService clusterService;

    @Override
    public Collection<?> createComponents(PluginServices services) {
        clusterService = services.clusterService();
        return List.of();
    }

    @Override
    public Collection<RestHandler> getRestHandlers(Settings settings, NamedWriteableRegistry namedWriteableRegistry,
                                                   RestController restController, ClusterSettings clusterSettings,
                                                   IndexScopedSettings indexScopedSettings, SettingsFilter settingsFilter,
                                                   IndexNameExpressionResolver indexNameExpressionResolver,
                                                   Supplier<DiscoveryNodes> nodesInCluster, Predicate<NodeFeature> clusterSupportsFeature) {
        return List.of(new RootHandler());
    }

    private final class RootHandler extends BaseRestHandler {
        @Override
        public String getName() {
            return "ingestlab_root_endpoint";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
            return channel -> {
                Build build = Build.current();
                XContentBuilder body = channel.newBuilder();
                body.startObject();
                body.field("name", clusterService.getNodeName());
                body.field("cluster_name", clusterService.getClusterName().value());
                body.field("cluster_uuid", clusterService.state().metadata().clusterUUID());
                body.startObject("version");
                body.field("number", build.qualifiedVersion());
                body.field("build_flavor", build.flavor());
                body.field("build_type", build.type().displayName());
                body.field("build_hash", build.hash());
                body.field("build_date", build.date());
                body.field("build_snapshot", build.isSnapshot());
                body.field("lucene_version", org.apache.lucene.util.Version.LATEST.toString());
                body.field("minimum_wire_compatibility_version", build.minWireCompatVersion());
                body.field("minimum_index_compatibility_version", build.minIndexCompatVersion());
                body.endObject();
                body.field("tagline", "You Know, for Search");
                body.endObject();
                channel.sendResponse(new RestResponse(RestStatus.OK, body));
            };
        }
    }
}
